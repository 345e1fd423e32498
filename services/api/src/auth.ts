/** Bearer-token check of mutating routes, in constant time. */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { ApiErrorCode, HttpError } from './errors.js';

function digest(text: string): Buffer {
  // Hashing first gives equal-length inputs, so timingSafeEqual leaks not even the length.
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * An `onRequest` hook: 403 when no token is configured (mutating routes are off), 401
 * when the `Authorization: Bearer …` header is missing or wrong. Runs before the body is
 * read, so unauthenticated clients cannot make the server parse large bodies.
 */
export function bearerGuard(token: string | undefined): (request: FastifyRequest) => Promise<void> {
  const expected = token === undefined ? undefined : digest(token);
  return async (request) => {
    if (expected === undefined) {
      throw new HttpError(
        403,
        ApiErrorCode.TOKEN_NOT_CONFIGURED,
        'mutating routes are disabled: set API_TOKEN on the API server to enable them',
      );
    }
    const header = request.headers.authorization ?? '';
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    if (!match || !timingSafeEqual(digest(match[1]!), expected)) {
      throw new HttpError(401, ApiErrorCode.UNAUTHORIZED, 'missing or wrong bearer token', {
        headers: { 'www-authenticate': 'Bearer realm="shardline"' },
      });
    }
  };
}
