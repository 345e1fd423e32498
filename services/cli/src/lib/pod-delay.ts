/**
 * The default delay the pods really use (their MIN_DELAY_MS), read from the settings each
 * pod publishes with its member record (`MembershipReader.memberInfo()`), so `shardline
 * domain` does not have to assume one. Preference: the domain's owner; else the live pods
 * (saying so when they differ); else the last pods whose records are kept; else a fallback.
 */
import { type MemberRecord, MembershipReader } from '@shardline/membership';
import type { Cluster, Redis } from 'ioredis';

/** The delay assumed when no pod has published one (the pods' own default). */
export const FALLBACK_DELAY_MS = 1000;

/** The pods' politeness defaults as one pod published them. */
export interface PodPoliteness {
  pod: string;
  alive: boolean;
  minDelayMs: number;
  perHostConcurrency?: number;
  maxDelayMs?: number;
  adaptiveDelay?: boolean;
}

/** The default delay to show and where it comes from, in words for the `why` column. */
export interface PodDelay {
  defaultDelayMs: number;
  /** E.g. `pod default (MIN_DELAY_MS of local-0)`. */
  why: string;
  /** Every pod's published politeness (live and kept ones). */
  pods: PodPoliteness[];
}

function politeness(member: MemberRecord): PodPoliteness | undefined {
  const { minDelayMs, perHostConcurrency, maxDelayMs, adaptiveDelay } = member.settings;
  if (typeof minDelayMs !== 'number') return undefined;
  return {
    pod: member.id,
    alive: member.alive,
    minDelayMs,
    ...(typeof perHostConcurrency === 'number' ? { perHostConcurrency } : {}),
    ...(typeof maxDelayMs === 'number' ? { maxDelayMs } : {}),
    ...(typeof adaptiveDelay === 'boolean' ? { adaptiveDelay } : {}),
  };
}

function ms(value: number): string {
  return `${value} ms`;
}

/** Picks the default delay for a domain owned by `owner` (see the module comment). */
export function choosePodDelay(pods: readonly PodPoliteness[], owner: string): PodDelay {
  const ownerPod = pods.find((p) => p.pod === owner && p.alive);
  if (ownerPod) {
    return {
      defaultDelayMs: ownerPod.minDelayMs,
      why: `pod default (MIN_DELAY_MS of ${ownerPod.pod}, the domain's owner)`,
      pods: [...pods],
    };
  }
  const live = pods.filter((p) => p.alive);
  const group = live.length > 0 ? live : pods;
  if (group.length === 0) {
    return {
      defaultDelayMs: FALLBACK_DELAY_MS,
      why: `default ${ms(FALLBACK_DELAY_MS)} assumed: no pod is running (or none publishes its MIN_DELAY_MS)`,
      pods: [],
    };
  }
  const values = new Set(group.map((p) => p.minDelayMs));
  const ids = group.map((p) => p.pod).join(', ');
  const kind = live.length > 0 ? 'pod default' : 'last pod default (no pod running now)';
  if (values.size === 1) {
    return {
      defaultDelayMs: group[0]!.minDelayMs,
      why: `${kind} (MIN_DELAY_MS of ${ids})`,
      pods: [...pods],
    };
  }
  // The pods disagree and none owns the domain: the largest is what a claim may meet.
  const largest = Math.max(...values);
  return {
    defaultDelayMs: largest,
    why: `${kind}, the largest: pods differ (MIN_DELAY_MS ${group.map((p) => `${p.pod} ${ms(p.minDelayMs)}`).join(', ')})`,
    pods: [...pods],
  };
}

/** Reads the pods' published politeness and picks the default delay for `owner`'s domain. */
export async function readPodDelay(
  redis: Redis | Cluster,
  prefix: string,
  owner: string,
): Promise<PodDelay> {
  const members = await new MembershipReader(redis, prefix).memberInfo();
  const pods = members.map(politeness).filter((p): p is PodPoliteness => p !== undefined);
  return choosePodDelay(pods, owner);
}
