import { HashRing, RingError, type RingMember } from '@shardline/ring';
import { usageError } from '../errors.js';

/** Ring options as the command line gives them. */
export interface RingFlags {
  vnodes?: number;
  seed?: number;
  weights?: Map<string, number>;
}

/** Pairs pod ids with their `--weights`; a weight for an unknown pod is a usage error. */
export function membersOf(
  ids: readonly string[],
  weights: Map<string, number> | undefined,
): RingMember[] {
  if (weights !== undefined) {
    const known = new Set(ids);
    for (const id of weights.keys()) {
      if (!known.has(id)) throw usageError(`--weights names pod "${id}", which is not in --pods`);
    }
  }
  return ids.map((id) => ({ id, weight: weights?.get(id) ?? 1 }));
}

/** Builds a ring, reporting a bad pod id or a too-large ring as a usage error. */
export async function buildRing(
  members: readonly RingMember[],
  flags: RingFlags,
): Promise<HashRing> {
  try {
    return await HashRing.create(members, { vnodes: flags.vnodes, seed: flags.seed });
  } catch (error) {
    if (error instanceof RingError) throw usageError(error.message);
    throw error;
  }
}
