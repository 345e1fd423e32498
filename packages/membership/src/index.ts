export type { Assignment } from './assignment.js';
export {
  MembershipError,
  MembershipErrorCode,
  MembershipNotReadyError,
  MembershipOptionsError,
  MembershipReplyError,
  MembershipStateError,
} from './errors.js';
export { MembershipKeys } from './keys.js';
export {
  type HandoffReport,
  Membership,
  type MembershipChange,
  type MembershipEvents,
  type ReclaimReport,
  type StopOptions,
  type SweepReport,
} from './membership.js';
export type { MembershipFrontier, MembershipOptions } from './options.js';
export { MembershipReader, type RegistryMember } from './reader.js';
export type { MemberEntry, MembershipView, ReclaimKind } from './registry.js';
