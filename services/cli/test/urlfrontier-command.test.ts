/**
 * `shardline up --pods K --urlfrontier-port BASE --no-fetch`, `scale` and `down` end to end:
 * the real binary, a real Redis, URLFrontier nodes on BASE, BASE+1, … that a grpc-js client
 * (knowing only the URLFrontier .proto) seeds, streams and lists as the cluster resizes.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePortRun, type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { discovered, FrontierClient } from '../../urlfrontier/test/cluster-fixture.js';
import type { ClusterFile } from '../src/local-cluster/control-file.js';
import { isAlive } from '../src/local-cluster/control-file.js';
import { runCliWith } from './run-cli-with.js';

let server: RedisServer;
let dir: string;
let base: number;
const seen = new Set<number>();
const clients: FrontierClient[] = [];

const cli = (args: string[]) => runCliWith([...args, '--data-dir', dir]);
const client = (port: number) => {
  const c = new FrontierClient(`127.0.0.1:${port}`);
  clients.push(c);
  return c;
};
const nodes = async (port: number) =>
  (await client(port).call<{ values: string[] }>('ListNodes', {})).values.sort();

function remember(): void {
  try {
    const file = JSON.parse(readFileSync(join(dir, 'cluster.json'), 'utf8')) as ClusterFile;
    seen.add(file.supervisorPid);
    for (const pod of file.pods) if (pod.pid !== undefined) seen.add(pod.pid);
  } catch {
    // No cluster file (yet, or any more).
  }
}

beforeAll(async () => {
  server = await startRedis();
  dir = mkdtempSync(join(tmpdir(), 'sl-urlfrontier-'));
  // The nodes listen on BASE … BASE+3 (up to scale 4): all of them free, not BASE alone.
  base = await freePortRun(4);
});

afterAll(async () => {
  remember();
  for (const c of clients) c.close();
  for (const pid of seen) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('shardline up --urlfrontier-port', () => {
  it('says what is wrong with a flag combination, in one line', async () => {
    const noFetch = await cli([
      'up',
      '--pods',
      '2',
      '--urlfrontier-port',
      String(base),
      '--redis',
      server.url,
    ]);
    expect(noFetch.code).toBe(2);
    expect(noFetch.stderr).toMatch(/--urlfrontier-port runs URLFrontier nodes.*add --no-fetch/);
    const alone = await cli(['up', '--pods', '2', '--no-fetch', '--redis', server.url]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toMatch(/--no-fetch needs --urlfrontier-port/);
    const crawlFlag = await cli([
      'up',
      '--pods',
      '2',
      '--urlfrontier-port',
      String(base),
      '--no-fetch',
      '--max-links-per-page',
      '5',
      '--redis',
      server.url,
    ]);
    expect(crawlFlag.code).toBe(2);
    expect(crawlFlag.stderr).toMatch(/--max-links-per-page is a crawl pod setting/);
  });

  it('a node whose port is taken exits 1 with one line naming the address', async () => {
    const holder = createServer();
    await new Promise<void>((done) => holder.listen(0, '127.0.0.1', done));
    const taken = (holder.address() as AddressInfo).port;
    try {
      const node = await cli(['urlfrontier', '--port', String(taken), '--redis', server.url]);
      expect(node.code).toBe(1);
      // One line: grpc-js's own "E No address added …" before it said the same, less clearly.
      const lines = node.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(`^error: cannot listen on 127\\.0\\.0\\.1:${taken}: .*in use.*--port`),
      );
      expect(node.stderr).not.toContain('internal error');
    } finally {
      await new Promise((done) => holder.close(done));
    }
  });

  it('a node whose Redis does not answer names it and the cause in one line, exit 1', async () => {
    // Nothing listens on a closed port; an HTTP server is not Redis (told at once).
    const http = createHttpServer((_, res) => res.end('hello'));
    await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
    const httpPort = (http.address() as AddressInfo).port;
    try {
      const [closed, notRedis] = await Promise.all([
        cli([
          'urlfrontier',
          '--port',
          '0',
          '--redis',
          'redis://127.0.0.1:1',
          '--redis-connect-timeout-ms',
          '800',
        ]),
        cli(['urlfrontier', '--port', '0', '--redis', `redis://127.0.0.1:${httpPort}`]),
      ]);
      expect(closed.code).toBe(1);
      expect(closed.stderr.trim().split('\n').at(-1)).toBe(
        'error: cannot reach Redis at redis://127.0.0.1:1: ECONNREFUSED (gave up after 800 ms; REDIS_CONNECT_TIMEOUT_MS / --redis-connect-timeout-ms sets how long)',
      );
      expect(notRedis.code).toBe(1);
      expect(notRedis.stderr.trim().split('\n').at(-1)).toBe(
        `error: cannot reach Redis at redis://127.0.0.1:${httpPort}: not a Redis server: it answered "HTTP/1.1 400 Bad Request"; check the host and port`,
      );
    } finally {
      http.closeAllConnections();
      await new Promise((done) => http.close(done));
    }
  });

  it('runs K nodes on BASE…, serves the protocol, and follows scale 4 and scale 2', async () => {
    const up = await cli([
      'up',
      '--pods',
      '3',
      '--urlfrontier-port',
      String(base),
      '--no-fetch',
      '--detach',
      '--redis',
      server.url,
      '--per-host-concurrency',
      '5',
    ]);
    remember();
    expect(up.code).toBe(0);
    const addresses = (n: number) =>
      Array.from({ length: n }, (_, i) => `127.0.0.1:${base + i}`).sort();
    await vi.waitFor(async () => expect(await nodes(base)).toEqual(addresses(3)), {
      timeout: 30_000,
      interval: 200,
    });
    const urls = Array.from({ length: 30 }, (_, i) => `http://cli${i % 10}.test/${i}`);
    const acks = await client(base + 1).putUrls(urls.map((u) => discovered(u)));
    expect(acks.every((a) => a.status === 'OK')).toBe(true);
    const got: string[] = [];
    for (let i = 0; i < 3; i++) {
      for (const info of await client(base + i).getUrls({ delay_requestable: 60 }))
        got.push(info.url);
    }
    expect(got.sort()).toEqual([...urls].sort());

    expect((await cli(['scale', '4'])).code).toBe(0);
    remember();
    await vi.waitFor(async () => expect(await nodes(base)).toEqual(addresses(4)), {
      timeout: 30_000,
      interval: 200,
    });
    expect((await cli(['scale', '2'])).code).toBe(0);
    await vi.waitFor(async () => expect(await nodes(base)).toEqual(addresses(2)), {
      timeout: 30_000,
      interval: 200,
    });
    const stats = await client(base).call<{ inProcess: number }>('GetStats', {
      key: '',
      crawlID: '',
    });
    expect(stats.inProcess).toBe(30);
    const down = await cli(['down']);
    expect(down.code).toBe(0);
  }, 120_000);
});
