/**
 * A pod recrawling a page whose server honours `If-None-Match`: the first fetch is archived as a
 * response, every `304 Not Modified` refetch as a WARC/1.1 revisit record (server-not-modified)
 * referring to that first capture, read back by warcio; each 304's result points at its revisit.
 */

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CrawlerPod } from '@shardline/crawler';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { warcioRecords } from '../../packages/warc/test/warc-files.js';
import { readResults } from '../helpers/hostile-crawl.js';
import { type RedisServer, startRedis } from '../helpers/redis.js';

const ETAG = '"v1"';
let web: Server;
let port: number;
let server: RedisServer;
let redis: Redis;
let dir: string;
/** What the server answered to each request of the page, in order. */
const answered: number[] = [];

beforeAll(async () => {
  web = createServer((req, res) => {
    if (req.url !== '/') {
      res.writeHead(404).end();
      return;
    }
    const status = req.headers['if-none-match'] === ETAG ? 304 : 200;
    answered.push(status);
    res.writeHead(status, { 'content-type': 'text/html', etag: ETAG });
    res.end(status === 200 ? '<html><title>kept</title></html>' : undefined);
  });
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  port = (web.address() as AddressInfo).port;
  server = await startRedis();
  redis = new Redis(server.url, { maxRetriesPerRequest: null });
  dir = mkdtempSync(join(tmpdir(), 'revisit-crawl-'));
});

afterAll(async () => {
  await redis?.quit();
  await server?.stop();
  await new Promise((resolve) => web?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('a conditional refetch answered 304', () => {
  it('is archived as a revisit of the first capture, and its result points at it', async () => {
    const url = `http://revisit.test:${port}/`;
    const pod = new CrawlerPod({
      redis,
      podId: 'rv-1',
      prefix: 'rv',
      minDelayMs: 0,
      maxDepth: 0,
      refetchAfterMs: 300,
      resolve: [`revisit.test:${port}:127.0.0.1`],
      warcDir: dir,
      logger: pino({ level: 'silent' }),
    });
    await pod.seed([url]);
    await pod.start();
    await vi.waitFor(() => expect(answered.filter((s) => s === 304).length).toBeGreaterThan(1), {
      timeout: 20_000,
      interval: 50,
    });
    await pod.stop();
    expect(answered[0]).toBe(200);

    const files = readdirSync(dir).filter((name) => name.endsWith('.warc.gz'));
    const records = (await Promise.all(files.map((f) => warcioRecords(join(dir, f))))).flat();
    const pages = records.filter((r) => r.url === url);
    const [first, ...later] = pages.filter((r) => r.type === 'response' || r.type === 'revisit');
    expect(first).toMatchObject({ type: 'response', status: 200 });
    expect(first!.payload.toString()).toBe('<html><title>kept</title></html>');
    expect(later.length).toBe(answered.length - 1);
    for (const revisit of later) {
      expect(revisit).toMatchObject({ type: 'revisit', status: 304 });
      expect(revisit.warcHeaders).toMatchObject({
        'warc-profile': 'http://netpreserve.org/warc/1.1/revisit/server-not-modified',
        'warc-refers-to-target-uri': url,
        'warc-refers-to-date': first!.warcHeaders['warc-date'],
      });
      expect(revisit.warcHeaders['warc-payload-digest']).toBeUndefined();
    }

    const results = (await readResults(redis, pod.resultsStreamKey)).filter((r) => r.url === url);
    const notModified = results.filter((r) => r.status === 304);
    expect(notModified.length).toBe(later.length);
    expect(notModified.map((r) => r.warcOffset)).toEqual(later.map((r) => r.offset));
  }, 60_000);
});
