import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { CrawlerPod } from '../src/crawler-pod.js';
import { CrawlerErrorCode } from '../src/errors.js';
import { type CrawlResult, decodeResult, encodeResult, ResultSink } from '../src/results.js';

describe('result encoding', () => {
  it('round-trips through stream fields, leaving absent fields out', () => {
    const result: CrawlResult = {
      url: 'http://a.test/p/1',
      host: 'a.test',
      domain: 'a.test',
      depth: 2,
      attempt: 1,
      pod: 'p1',
      outcome: 'fetched',
      status: 200,
      bytes: 1234,
      contentType: 'text/html',
      truncated: true,
      links: 4,
      linksQueued: 3,
      bounds: 'body-cap',
      startedAtMs: 1000,
      sentAtMs: 1001.5,
      endAtMs: 1010,
      durationMs: 9,
    };
    const fields = encodeResult(result);
    expect(fields).not.toContain('redirectTo');
    expect(fields[fields.indexOf('truncated') + 1]).toBe('1');
    expect(decodeResult(fields)).toEqual(result);
  });
});

describe('output files a pod cannot use are one error when it is built', () => {
  let dir: string;
  let server: RedisServer;
  let redis: Redis;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sink-'));
    writeFileSync(join(dir, 'a-file'), 'x');
    server = await startRedis();
    redis = new Redis(server.url);
  });
  afterAll(async () => {
    redis.disconnect();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const pod = (options: Record<string, unknown>) => () =>
    new CrawlerPod({ redis, logger: pino({ level: 'silent' }), ...options });

  it('a results or items JSONL path that cannot be opened, naming the setting and why', () => {
    expect(pod({ resultsJsonl: dir })).toThrow(
      expect.objectContaining({
        code: CrawlerErrorCode.CONFIG,
        message: `results JSONL file (resultsJsonl, --results-jsonl) ${dir}: cannot open it to append (EISDIR)`,
      }),
    );
    expect(pod({ handler: 'h.mjs', itemsJsonl: join(dir, 'a-file', 'items.jsonl') })).toThrow(
      expect.objectContaining({
        code: CrawlerErrorCode.CONFIG,
        message: expect.stringMatching(
          /^items JSONL file \(itemsJsonl, --items-jsonl\) .*: cannot open it to append \(ENOTDIR\)$/,
        ),
      }),
    );
  });

  it('says once that an items JSONL file without a page handler stays unwritten', () => {
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => lines.push(line) });
    const path = join(dir, 'unused', 'items.jsonl');
    new CrawlerPod({ redis, logger, itemsJsonl: path });
    expect(lines.map((line) => JSON.parse(line).msg)).toEqual([
      'items JSONL file given without a page handler (--handler): nothing pushes items, so it is not written',
    ]);
    expect(existsSync(path)).toBe(false);
  });

  it('a WARC directory in the way of a file, or under procfs (where Node 20 spun for ever)', () => {
    expect(pod({ warcDir: join(dir, 'a-file') })).toThrow(
      expect.objectContaining({
        code: CrawlerErrorCode.CONFIG,
        message: `WARC directory (warcDir, --warc-dir) ${join(dir, 'a-file')}: cannot write there (ENOTDIR)`,
      }),
    );
    if (existsSync('/proc/self')) {
      expect(pod({ warcDir: '/proc/shardline-warc' })).toThrow(/cannot write there \(ENOENT\)/);
    }
  });

  it('creates a JSONL file’s missing directories, and logs the first failed write once', async () => {
    const nested = join(dir, 'new', 'deeper', 'results.jsonl');
    const sink = new ResultSink({ jsonlPath: nested });
    sink.write({ url: 'http://a.test/' } as CrawlResult);
    await sink.close();
    expect(readFileSync(nested, 'utf8')).toBe('{"url":"http://a.test/"}\n');
    // /dev/full opens, then refuses every write (ENOSPC): a full disk.
    const told: Error[] = [];
    const full = new ResultSink({ jsonlPath: '/dev/full', onFileError: (e) => told.push(e) });
    for (let i = 0; i < 3; i++) {
      full.write({ url: `http://a.test/${i}` } as CrawlResult);
      full.flush();
      await new Promise((r) => setTimeout(r, 20));
    }
    await full.close().catch(() => undefined);
    expect(told.map((e) => (e as NodeJS.ErrnoException).code)).toEqual(['ENOSPC']);
    expect(full.stats().errors).toBeGreaterThanOrEqual(1);
  });
});
