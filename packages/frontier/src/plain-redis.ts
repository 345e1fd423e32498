/**
 * A `rediss://` URL pointed at a Redis that does not speak TLS. The server reads the TLS
 * ClientHello as an inline command and waits for its end of line, so the handshake gets no
 * answer and the client only ever says "timed out", for as long as it is let retry. Asking
 * the same port in plain text tells the two apart: a Redis answers `PING` at once.
 */
import { Socket } from 'node:net';

/**
 * When a `rediss://` Redis not connected yet is asked in plain text (a TLS Redis on loopback
 * or a LAN is ready well before), and how long the answer is waited for.
 */
export const PLAIN_PROBE_AFTER_MS = 1000;
export const PLAIN_PROBE_TIMEOUT_MS = 1000;

/** What to say when {@link plainRedisAnswers} is true. */
export const PLAIN_REDIS_HINT =
  'the TLS handshake got no answer, but a Redis without TLS answers PING on that port: use redis:// instead of rediss://';

/** Host and port of a `rediss://` URL, or undefined for any other URL. */
export function tlsRedisAddress(
  url: string | undefined,
): { host: string; port: number } | undefined {
  if (url === undefined || !/^rediss:\/\//i.test(url)) return undefined;
  try {
    const parsed = new URL(url);
    // WHATWG keeps IPv6 literals in brackets; the socket wants them bare.
    const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1') || 'localhost';
    return { host, port: parsed.port === '' ? 6379 : Number(parsed.port) };
  } catch {
    return undefined;
  }
}

/**
 * The first line a server at `address` answers to a plain-text `PING` (`+PONG`,
 * `-NOAUTH …`), or undefined when nothing printable comes back within `timeoutMs` (refused,
 * silent, binary). Never rejects.
 */
export function pingReply(
  address: { host: string; port: number },
  timeoutMs = PLAIN_PROBE_TIMEOUT_MS,
): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = new Socket();
    let answer = '';
    const done = (line: string | undefined) => {
      socket.destroy();
      resolve(line);
    };
    socket.setTimeout(timeoutMs, () => done(undefined));
    socket.once('error', () => done(undefined));
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
      const end = answer.indexOf('\r\n');
      const line = answer.slice(0, end);
      if (end >= 0) done(/^[\x20-\x7e]*$/.test(line) ? line : undefined);
      else if (answer.length > 512) done(undefined);
    });
    socket.once('end', () => done(undefined));
    socket.connect(address.port, address.host, () => socket.write('PING\r\n'));
  });
}

/**
 * Whether a plain-text Redis answers `PING` at `address` within `timeoutMs`: a simple-string
 * or error reply (`+PONG`, `-NOAUTH …`, `-ERR …`).
 */
export async function plainRedisAnswers(
  address: { host: string; port: number },
  timeoutMs = PLAIN_PROBE_TIMEOUT_MS,
): Promise<boolean> {
  return /^[+-]/.test((await pingReply(address, timeoutMs)) ?? '');
}

/**
 * Watches a client of `url` when it is a `rediss://` URL (any other: nothing to watch):
 * `afterMs` in, if the client is still not ready, asks the port in plain text and calls
 * `onPlain` when a Redis answers there and the client is still not ready. Returns the
 * function that ends the watch.
 */
export function watchForPlainRedis(
  url: string | undefined,
  client: { readonly status: string },
  onPlain: () => void,
  afterMs = PLAIN_PROBE_AFTER_MS,
): () => void {
  const address = tlsRedisAddress(url);
  if (address === undefined) return () => {};
  let ended = false;
  const ready = () => ended || client.status === 'ready';
  const timer = setTimeout(async () => {
    if (ready() || !(await plainRedisAnswers(address)) || ready()) return;
    onPlain();
  }, afterMs);
  timer.unref();
  return () => {
    ended = true;
    clearTimeout(timer);
  };
}
