/**
 * A connection whose server is not Redis: a wrong port that an HTTP server, a TLS listener or
 * another service answers. ioredis's parser then fails on the first byte of the answer with
 * "Protocol error, got "H" as reply type byte. Please report this." — which reads like a bug
 * to report, and, retried, never ends. This names it in the operator's terms instead.
 */

/** Longest part of the answer quoted. */
const QUOTED_CHARS = 60;

/**
 * The reason to print when `error` is ioredis's parser failing on a server's answer, quoting
 * the answer's first line: `not a Redis server: it answered "HTTP/1.1 400 Bad Request"; check
 * the host and port`. Undefined for any other error.
 */
export function notRedisReason(error: unknown): string | undefined {
  if (!(error instanceof Error) || error.name !== 'ParserError') return undefined;
  const answer = answerOf(error);
  const line = answer === undefined ? undefined : firstLine(answer);
  const said =
    line === undefined
      ? 'bytes that are not the Redis protocol (a TLS port? use rediss://)'
      : JSON.stringify(line);
  return `not a Redis server: it answered ${said}; check the host and port`;
}

/**
 * The bytes the parser failed on: redis-parser keeps them on the error as
 * `JSON.stringify(buffer)` (`{"type":"Buffer","data":[72,84,…]}`); only the start is needed.
 */
function answerOf(error: Error): Buffer | undefined {
  const raw = (error as Error & { buffer?: unknown }).buffer;
  if (Buffer.isBuffer(raw)) return raw;
  if (typeof raw !== 'string') return undefined;
  try {
    const parsed = JSON.parse(raw) as { type?: unknown; data?: unknown };
    if (parsed.type !== 'Buffer' || !Array.isArray(parsed.data)) return undefined;
    return Buffer.from(parsed.data.slice(0, 4 * QUOTED_CHARS) as number[]);
  } catch {
    return undefined;
  }
}

/** The answer's first line when it is printable ASCII, else undefined (binary, TLS). */
function firstLine(answer: Buffer): string | undefined {
  const end = answer.indexOf('\n');
  const line = answer
    .subarray(0, end < 0 ? answer.length : end)
    .toString('latin1')
    .replace(/\r$/, '');
  if (line === '' || !/^[\x20-\x7e]+$/.test(line)) return undefined;
  return line.length > QUOTED_CHARS ? `${line.slice(0, QUOTED_CHARS)}…` : line;
}

/**
 * The short cause of a Redis connection error, for a log line: its socket code
 * (`ECONNREFUSED`, `ETIMEDOUT`…; a cluster's node error carries it as `lastNodeError`), the
 * {@link notRedisReason} of a server that is not Redis, or the message.
 */
export function redisErrorCause(error: unknown): string {
  const e = error as NodeJS.ErrnoException & { lastNodeError?: NodeJS.ErrnoException };
  const inner = e?.lastNodeError ?? e;
  if (typeof inner?.code === 'string' && /^E[A-Z_]+$/.test(inner.code)) return inner.code;
  return notRedisReason(inner) ?? (inner instanceof Error ? inner.message : String(inner));
}
