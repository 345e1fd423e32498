import { invalidOption, RingError, RingErrorCode, show } from './errors.js';

/** One pod on the ring. */
export interface RingMember {
  /** Stable pod id (`POD_ID`); 1–255 characters, no control characters. */
  id: string;
  /**
   * Capacity relative to the other pods; the pod gets `max(1, round(vnodes × weight))`
   * tokens, so fractional weights work down to a resolution of `1 / vnodes`.
   * @default 1
   */
  weight?: number;
}

/** Options of a {@link HashRing}. All pods must use the same values to agree on owners. */
export interface HashRingOptions {
  /**
   * Tokens per unit of weight. The default was chosen by measurement (see docs/ring.md):
   * at 10 pods and 100,000 domains it keeps max/mean load under 1.05 in the worst of 100
   * random sets of pod ids.
   * @default 8192
   */
  vnodes?: number;
  /**
   * Seed of the token hashes (a non-negative safe integer). Key positions do not depend on
   * it, so rings with different seeds can still be diffed.
   * @default 0
   */
  seed?: number;
  /**
   * Membership epoch carried with the ring (does not affect ownership); `add` and `remove`
   * return a ring with `epoch + 1`.
   * @default 0
   */
  epoch?: number;
}

/** Default tokens per unit weight (see docs/ring.md for the measurement behind it). */
export const DEFAULT_VNODES = 8192;
/** Upper bound on Σ tokens of a ring: 2²⁵ tokens take about 330 MiB while building. */
export const MAX_TOKENS = 2 ** 25;
const MAX_VNODES = 2 ** 20;
const MAX_ID_CHARS = 255;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we reject
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

/** Validated options with defaults applied. */
export interface ResolvedOptions {
  vnodes: number;
  seed: number;
  epoch: number;
}

/** A member after validation, with its weight resolved. */
export interface ResolvedMember {
  id: string;
  weight: number;
}

/** Validates options; the error names the option, the value and its type. */
export function resolveOptions(options: HashRingOptions | undefined): ResolvedOptions {
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw invalidOption('HashRingOptions', options, 'an object');
  }
  const vnodes = options?.vnodes ?? DEFAULT_VNODES;
  if (!Number.isInteger(vnodes) || vnodes < 1 || vnodes > MAX_VNODES) {
    throw invalidOption('HashRingOptions.vnodes', vnodes, `an integer from 1 to ${MAX_VNODES}`);
  }
  const seed = options?.seed ?? 0;
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw invalidOption('HashRingOptions.seed', seed, 'a non-negative safe integer');
  }
  const epoch = options?.epoch ?? 0;
  if (!Number.isSafeInteger(epoch) || epoch < 0) {
    throw invalidOption('HashRingOptions.epoch', epoch, 'a non-negative safe integer');
  }
  return { vnodes, seed, epoch };
}

/** Validates one member given as an id or a {@link RingMember}. */
export function resolveMember(member: string | RingMember): ResolvedMember {
  const isObject = typeof member === 'object' && member !== null;
  const id: unknown = isObject ? member.id : member;
  if (
    typeof id !== 'string' ||
    id.length === 0 ||
    id.length > MAX_ID_CHARS ||
    CONTROL_CHARS.test(id)
  ) {
    throw new RingError(
      RingErrorCode.INVALID_MEMBER,
      `member id must be a string of 1 to ${MAX_ID_CHARS} characters without control characters; got ${show(id)} (${id === null ? 'null' : typeof id})`,
    );
  }
  const weight: unknown = isObject ? (member.weight ?? 1) : 1;
  if (typeof weight !== 'number' || !Number.isFinite(weight) || weight <= 0) {
    throw invalidOption(`weight of member ${show(id)}`, weight, 'a finite number > 0');
  }
  return { id, weight };
}

/** Validates a membership list and returns it sorted by id (UTF-16 code unit order). */
export function resolveMembers(members: Iterable<string | RingMember>): ResolvedMember[] {
  if (members === null || typeof members !== 'object' || !(Symbol.iterator in members)) {
    throw invalidOption('members', members, 'an iterable of ids or { id, weight } objects');
  }
  const resolved: ResolvedMember[] = [];
  for (const member of members) resolved.push(resolveMember(member));
  // Sorting first is what makes the ring independent of the order members were given in.
  resolved.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (let i = 1; i < resolved.length; i++) {
    if (resolved[i]!.id === resolved[i - 1]!.id) {
      throw new RingError(
        RingErrorCode.DUPLICATE_MEMBER,
        `member id ${show(resolved[i]!.id)} appears more than once`,
      );
    }
  }
  return resolved;
}

/** Tokens a member gets: `max(1, round(vnodes × weight))`. */
export function tokenCount(vnodes: number, weight: number): number {
  return Math.max(1, Math.round(vnodes * weight));
}
