/**
 * A join that found its pod id's live session held by another instance (heartbeat status
 * `Held`): a previous incarnation that died inside its session (a restart, which takes the
 * session over and requeues that incarnation's leases), or another process running with the
 * same id — which must not: the two would requeue each other's leases and fetch the same hosts
 * at once. The holder tells them apart by beating or not.
 */
import { MembershipPodIdInUseError } from './errors.js';
import type { Registry } from './registry.js';

/**
 * How late a live holder's heartbeat may be, in heartbeat periods, before it counts as gone:
 * a beat is due one period after the last; half a period more covers timer and Redis lag.
 */
const SILENCE_PERIODS = 1.5;

/**
 * Resolves once the holder of `pod`'s session has missed its heartbeat (or left), so the
 * caller may take the session over; throws {@link MembershipPodIdInUseError} as soon as the
 * holder renews it. `nowMs` is the Redis time of the join. Waits at most 1.5 periods.
 */
export async function awaitHolderSilence(
  registry: Registry,
  pod: string,
  timing: { sessionTimeoutMs: number; heartbeatMs: number },
  nowMs: number,
): Promise<void> {
  const first = await registry.holder(pod);
  if (!first) return;
  const since = performance.now();
  const redisNow = () => nowMs + (performance.now() - since);
  const lastBeatMs = first.expiryMs - timing.sessionTimeoutMs;
  const silentAtMs = lastBeatMs + SILENCE_PERIODS * timing.heartbeatMs;
  const pollMs = Math.max(10, Math.floor(timing.heartbeatMs / 5));
  while (redisNow() < silentAtMs) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, silentAtMs - redisNow())));
    const holder = await registry.holder(pod);
    if (!holder) return;
    if (holder.instance !== first.instance || holder.expiryMs > first.expiryMs) {
      throw new MembershipPodIdInUseError(pod, holder.info);
    }
  }
}
