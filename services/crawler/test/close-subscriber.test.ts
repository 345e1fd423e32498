/**
 * The pod's wake connection closes within its bound whatever the server does: QUIT to a live
 * Redis, a dropped socket when the server does not answer (here: a redis-server stopped with
 * SIGSTOP), and no unhandled rejection from the QUIT given up on.
 */
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { closeSubscriber, duplicateSubscriber } from '../src/pod-components.js';

let server: RedisServer;
beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  process.kill(server.pid, 'SIGCONT');
  await server?.stop();
});

describe('closeSubscriber', () => {
  it('QUITs a live connection; drops one whose server does not answer, in ~2 s', async () => {
    const log = pino({ level: 'silent' });
    const main = new Redis(server.url, { maxRetriesPerRequest: null });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const live = duplicateSubscriber(main, log)!;
      await live.subscribe('wake');
      await closeSubscriber(live, log);
      await vi.waitFor(() => expect(live.status).toBe('end'), { timeout: 5000 });

      const stuck = duplicateSubscriber(main, log)!;
      await stuck.subscribe('wake');
      process.kill(server.pid, 'SIGSTOP');
      const startedAt = Date.now();
      await closeSubscriber(stuck, log);
      expect(Date.now() - startedAt).toBeLessThan(15_000);
      await vi.waitFor(() => expect(stuck.status).toBe('end'), { timeout: 5000 });
      // The QUIT it gave up on settles after the drop; nothing may surface unhandled.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(unhandled).toEqual([]);
    } finally {
      process.kill(server.pid, 'SIGCONT');
      process.off('unhandledRejection', onUnhandled);
      main.disconnect();
    }
  }, 30_000);
});
