/**
 * Errors thrown by `@shardline/membership`. Callers branch on `code`, never on the message.
 */

/** Stable codes of the errors this package throws. */
export const MembershipErrorCode = {
  OPTIONS: 'SHARDLINE_ERR_MEMBERSHIP_OPTIONS',
  NOT_READY: 'SHARDLINE_ERR_MEMBERSHIP_NOT_READY',
  STATE: 'SHARDLINE_ERR_MEMBERSHIP_STATE',
  REPLY: 'SHARDLINE_ERR_MEMBERSHIP_REPLY',
  POD_ID_IN_USE: 'SHARDLINE_ERR_MEMBERSHIP_POD_ID_IN_USE',
  SUPERSEDED: 'SHARDLINE_ERR_MEMBERSHIP_SUPERSEDED',
} as const;
export type MembershipErrorCode = (typeof MembershipErrorCode)[keyof typeof MembershipErrorCode];

/** Base class: every membership error has a fixed `name` and a stable `code`. */
export class MembershipError extends Error {
  override readonly name: string = 'MembershipError';
  readonly code: MembershipErrorCode;

  constructor(code: MembershipErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number' && !Number.isFinite(value)) return 'non-finite number';
  return typeof value;
}

function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 80));
  if (typeof value === 'function') return 'function';
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'array' : 'object';
  return String(value);
}

/** An invalid option of {@link Membership} (a programming error). */
export class MembershipOptionsError extends MembershipError {
  override readonly name = 'MembershipOptionsError';
  /** Name of the offending option. */
  readonly option: string;
  readonly value: unknown;

  constructor(option: string, value: unknown, expected: string) {
    super(
      'SHARDLINE_ERR_MEMBERSHIP_OPTIONS',
      `option ${option} must be ${expected}, got ${show(value)} (${typeName(value)})`,
    );
    this.option = option;
    this.value = value;
  }
}

/** `ownerOf` was called before the first member list was known (before `start()` resolved). */
export class MembershipNotReadyError extends MembershipError {
  override readonly name = 'MembershipNotReadyError';

  constructor(what: string) {
    super('SHARDLINE_ERR_MEMBERSHIP_NOT_READY', `${what}: no member list yet; await start() first`);
  }
}

/** A method was called in the wrong lifecycle state (e.g. `start()` twice). */
export class MembershipStateError extends MembershipError {
  override readonly name = 'MembershipStateError';

  constructor(message: string) {
    super('SHARDLINE_ERR_MEMBERSHIP_STATE', message);
  }
}

/** A membership script replied in a shape this version does not understand. */
export class MembershipReplyError extends MembershipError {
  override readonly name = 'MembershipReplyError';

  constructor(script: string, reply: unknown) {
    super(
      'SHARDLINE_ERR_MEMBERSHIP_REPLY',
      `unexpected reply from membership script ${script}: ${JSON.stringify(reply)?.slice(0, 200)}`,
    );
  }
}

/**
 * `start()` found the pod id held by another instance that is still heartbeating: two
 * processes with one id would take each other's leases and fetch the same hosts at once.
 */
export class MembershipPodIdInUseError extends MembershipError {
  override readonly name = 'MembershipPodIdInUseError';
  readonly podId: string;

  constructor(podId: string, holderInfo: string) {
    super(
      'SHARDLINE_ERR_MEMBERSHIP_POD_ID_IN_USE',
      `pod id ${podId} is in use by another live pod (${holderInfo || 'no diagnostics'}): give each pod its own id (--pod-id, POD_ID), or stop the other`,
    );
    this.podId = podId;
  }
}

/**
 * A heartbeat found the pod's session held by another instance: this process stalled (a long
 * pause, a frozen VM) for longer than another instance with its id waited before taking the
 * session over. That instance requeued this one's leases and owns the id now: this one must
 * stop at once, without leaving (the id is not its own to leave).
 */
export class MembershipSupersededError extends MembershipError {
  override readonly name = 'MembershipSupersededError';
  readonly podId: string;

  constructor(podId: string, holderInfo: string, silentMs: number) {
    super(
      'SHARDLINE_ERR_MEMBERSHIP_SUPERSEDED',
      `pod id ${podId} was taken over by another instance (${holderInfo || 'no diagnostics'}) while this process was stalled (no heartbeat for ${Math.round(silentMs)} ms): stopping without leaving; the other instance goes on with the id`,
    );
    this.podId = podId;
  }
}
