export { diffRings, type MovedRange, type OwnerChange, RingDiff } from './diff.js';
export { RingError, RingErrorCode } from './errors.js';
export { HashRing } from './hash-ring.js';
export { loadHasher } from './hasher.js';
export {
  DEFAULT_VNODES,
  type HashRingOptions,
  MAX_TOKENS,
  type RingMember,
} from './members.js';
export { syntheticDomains } from './synthetic.js';
