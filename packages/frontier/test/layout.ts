/**
 * The frontier's key layout for tests in other packages that must look beneath its API:
 * states only a crash produces, and where the keys land on a Cluster. The layout stays
 * spelled in this package (src/keys.ts); other packages' tests ask for the fault or the
 * pattern, never spell a key.
 */
import type { Cluster, Redis } from 'ioredis';
import { FrontierKeys } from '../src/keys.js';

/** A SCAN MATCH pattern for the archive hashes (finished domains, folded) under a prefix. */
export { archiveKeysPattern } from '../src/archive.js';

/**
 * Moves a global counter by `delta`, as a pod killed between a domain script and its
 * counter update leaves it (e.g. `inFlight` +1 after a complete whose decrement was lost).
 */
export async function skewGlobalCounter(
  redis: Redis | Cluster,
  prefix: string,
  field: string,
  delta: number,
): Promise<void> {
  await redis.hincrby(new FrontierKeys(prefix).stats(), field, delta);
}

/** A SCAN MATCH pattern for every per-domain key under `prefix`. */
export function domainKeysPattern(prefix: string): string {
  return new FrontierKeys(prefix).domainKeysPattern();
}

/** How many distinct archive hashes hold `domains` once they are all folded away. */
export function archiveKeyCount(prefix: string, domains: Iterable<string>): number {
  const keys = new FrontierKeys(prefix);
  return new Set([...domains].map((domain) => keys.archive(domain))).size;
}
