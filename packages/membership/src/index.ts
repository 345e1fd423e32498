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
export { ModuloAssignment, type ModuloChange, type ModuloEvents } from './modulo.js';
export type {
  AssignmentOptions,
  MembershipFrontier,
  MembershipOptions,
  ModuloAssignmentOptions,
} from './options.js';
export { MembershipReader, type RegistryMember } from './reader.js';
export type { MemberEntry, MembershipView, ReclaimKind } from './registry.js';
