export type { Assignment } from './assignment.js';
export type { DepartedReport } from './departed.js';
export {
  MembershipError,
  MembershipErrorCode,
  MembershipNotReadyError,
  MembershipOptionsError,
  MembershipPodIdInUseError,
  MembershipReplyError,
  MembershipStateError,
  MembershipSupersededError,
} from './errors.js';
export type {
  HandoffReport,
  MembershipChange,
  MembershipEvents,
  ReclaimReport,
  StopOptions,
  SweepReport,
} from './events.js';
export { RING_HISTORY_LENGTH, type RingHistoryEntry } from './history.js';
export { MembershipKeys } from './keys.js';
export type { MemberInfo, PublishedSetting, PublishedSettings } from './member-info.js';
export { Membership } from './membership.js';
export type { MembershipFrontier, MembershipOptions } from './options.js';
export { MAX_POD_WEIGHT } from './options.js';
export { type MemberRecord, MembershipReader, type RegistryMember } from './reader.js';
export type { MemberEntry, MembershipView, ReclaimKind } from './registry.js';
