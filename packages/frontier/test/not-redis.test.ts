/**
 * `notRedisReason` on the errors ioredis really raises when the server at a Redis URL is
 * something else: an HTTP server, a listener that answers binary (a TLS handshake), and a
 * real Redis that is simply gone (not this case).
 */
import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer, type Server } from 'node:net';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../../../test/helpers/redis.js';
import { notRedisReason } from '../src/index.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => s.close(done))));
});

/** Listens on loopback; every connection is dropped once answered, so `close` ends. */
async function listen(server: Server): Promise<number> {
  servers.push(server);
  server.on('connection', (socket) => socket.setTimeout(200, () => socket.destroy()));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return (server.address() as { port: number }).port;
}

/** The first error a client on `port` raises. */
async function firstError(port: number): Promise<unknown> {
  const client = new Redis(port, '127.0.0.1', { lazyConnect: true, retryStrategy: () => null });
  const error = new Promise((done) => client.once('error', done));
  client.connect().catch(() => undefined);
  try {
    return await error;
  } finally {
    client.disconnect();
  }
}

describe('notRedisReason', () => {
  it('quotes the first line an HTTP server answers', async () => {
    const http = createHttpServer((_, res) => res.end('hi'));
    http.keepAliveTimeout = 100;
    const port = await listen(http);
    expect(notRedisReason(await firstError(port))).toBe(
      'not a Redis server: it answered "HTTP/1.1 400 Bad Request"; check the host and port',
    );
  });

  it('names a binary answer (a TLS port) without quoting it', async () => {
    const tls = createTcpServer((socket) =>
      socket.end(Buffer.from([0x15, 0x03, 0x03, 0, 2, 2, 70])),
    );
    const port = await listen(tls);
    expect(notRedisReason(await firstError(port))).toBe(
      'not a Redis server: it answered bytes that are not the Redis protocol (a TLS port? use rediss://); check the host and port',
    );
  });

  it('is undefined for a refused connection and for other errors', async () => {
    const error = await firstError(await freePort());
    expect((error as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
    expect(notRedisReason(error)).toBeUndefined();
    expect(notRedisReason(new Error('Protocol error'))).toBeUndefined();
    expect(notRedisReason('x')).toBeUndefined();
  });
});
