/** Argument checks and reply shape checks shared by the frontier's modules. */
import { FrontierArgumentError, FrontierReplyError } from './errors.js';

/** Pod ids: what due-index keys, hash tags and lease holders can carry. */
export const POD_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function checkPod(pod: unknown): string {
  if (typeof pod !== 'string' || !POD_ID.test(pod)) {
    throw new FrontierArgumentError('pod', pod, 'a pod id of 1-128 [A-Za-z0-9._:-]');
  }
  return pod;
}

/** A domain or host name as a key part: no whitespace, `/` (due members) or braces (tags). */
export function isName(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && !/[\s/{}]/.test(value);
}

export function checkName(what: string, value: unknown): string {
  if (!isName(value)) throw new FrontierArgumentError(what, value, `a ${what} name`);
  return value;
}

export function checkPage(page: { offset?: number; limit?: number }): {
  offset: number;
  limit: number;
} {
  const offset = page?.offset ?? 0;
  const limit = page?.limit ?? 100;
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new FrontierArgumentError('offset', offset, 'a non-negative integer');
  }
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new FrontierArgumentError('limit', limit, 'a positive integer');
  }
  return { offset, limit };
}

/** A script reply that must be an array; anything else is a version mismatch. */
export function asArray(reply: unknown, script: string): unknown[] {
  if (!Array.isArray(reply)) throw new FrontierReplyError(script, reply);
  return reply;
}
