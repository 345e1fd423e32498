/** The claim+complete loop the frontier benches drive (not a bench itself: no `.bench.ts`). */
import type { RedisFrontier } from '../src/index.js';

/**
 * Claims and completes `total` URLs as a pod's claimers would: 4 concurrent loops of
 * `claim({ max: 250 })` then `completeMany`; a claim that finds nothing (hosts another loop
 * holds while it visits them, `claimHoldMs`) tries again a ms later.
 */
export async function claimAll(frontier: RedisFrontier, total: number): Promise<void> {
  let done = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (done < total) {
        const { leases } = await frontier.claim({ pod: 'bench', max: 250 });
        if (leases.length === 0) {
          await new Promise((r) => setTimeout(r, 1));
          continue;
        }
        await frontier.completeMany(leases.map((lease) => ({ lease })));
        done += leases.length;
      }
    }),
  );
}
