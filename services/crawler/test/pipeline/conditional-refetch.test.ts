/**
 * Conditional refetch with a real Fetcher against a server that honours validators: a lease
 * carrying validators sends `If-None-Match` / `If-Modified-Since`; a 304 completes unchanged
 * with no body; a 200 completes with its `ETag`, `Last-Modified` and content hash, `changed`
 * decided against the previous hash. The server counts full answers and 304s.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Fetcher } from '../../src/fetcher.js';
import { ClassifyStage } from '../../src/pipeline/classify.js';
import { FetchStage } from '../../src/pipeline/fetch-stage.js';
import { type CompleteItem, Settler } from '../../src/pipeline/settle.js';
import type { PageValidators } from '../../src/pipeline/validators.js';
import { PodCounters } from '../../src/pod-counters.js';
import { SendGate } from '../../src/send-gate.js';
import { startTestServer, type TestServer, testDns } from '../fixtures/test-server.js';
import { contextOf } from './lease-fixture.js';

const LAST_MODIFIED = 'Tue, 24 Nov 2026 10:00:00 GMT';
let server: TestServer;
let fetcher: Fetcher;
/** The page's current version; its ETag is `"v<version>"`. */
let version = 1;
/** A body that keeps its content across versions (no validators: only the hash tells). */
let plainBody = 'same words';
const answers = { full: 0, notModified: 0 };

beforeAll(async () => {
  server = await startTestServer({
    '/page': (req, res) => {
      const etag = `"v${version}"`;
      const sinceOk =
        req.headers['if-modified-since'] === LAST_MODIFIED &&
        req.headers['if-none-match'] === undefined;
      if (req.headers['if-none-match'] === etag || (version === 1 && sinceOk)) {
        answers.notModified += 1;
        res.writeHead(304, { etag });
        res.end();
        return;
      }
      answers.full += 1;
      res.writeHead(200, { 'content-type': 'text/html', etag, 'last-modified': LAST_MODIFIED });
      res.end(`<p>version ${version}</p>`);
    },
    '/plain': (_req, res) => {
      answers.full += 1;
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(plainBody);
    },
  });
  fetcher = new Fetcher({ dns: testDns() });
});

afterAll(async () => {
  await fetcher?.close();
  await server?.close();
});

/** Fetches `path` as a lease with `validators` and returns what the completion carried. */
async function fetchAndComplete(path: string, validators?: PageValidators) {
  const completed: CompleteItem[] = [];
  const counters = new PodCounters();
  const settler = new Settler({
    frontier: { fail: async () => ({ outcome: 'retry', attempt: 1 }), release: async () => {} },
    complete: {
      add: async (items) => {
        completed.push(...items);
        return items.map(() => null);
      },
    },
    results: { write: () => undefined },
    counters,
    logger: pino({ level: 'silent' }),
    robotsMaxRetries: 3,
  });
  const ctx = contextOf(server.url(path), validators ? { validators } : {});
  ctx.pass = await new SendGate({ minDelayMs: 0 }).acquire(ctx.lease.host);
  const settlement = (await new FetchStage(fetcher).run(ctx)) ?? new ClassifyStage().run(ctx);
  expect(settlement).toBeUndefined();
  await settler.settle(ctx, { kind: 'complete' });
  return {
    result: completed[0]!.result,
    outcome: ctx.outcome!,
    counters,
    request: server.requests.at(-1)!,
  };
}

describe('conditional refetch', () => {
  it('stores validators on a first fetch, sends them back, and a 304 completes unchanged', async () => {
    version = 1;
    const first = await fetchAndComplete('/page');
    expect(first.request.headers['if-none-match']).toBeUndefined();
    expect(first.result).toMatchObject({ status: 200 });
    expect(first.result.changed).toBeUndefined();
    const stored = first.result.validators!;
    expect(stored).toEqual({
      etag: '"v1"',
      lastModified: LAST_MODIFIED,
      contentHash: expect.stringMatching(/^[A-Za-z0-9_-]{27}$/),
      // When this content was captured: what a later 304's WARC revisit record refers to.
      capturedAtMs: first.outcome.timings.sentAtMs,
    });

    const before = { ...answers };
    const again = await fetchAndComplete('/page', stored);
    expect(again.request.headers['if-none-match']).toBe('"v1"');
    expect(again.request.headers['if-modified-since']).toBe(LAST_MODIFIED);
    expect(answers).toEqual({ full: before.full, notModified: before.notModified + 1 });
    expect(again.outcome.bytes).toBe(0);
    expect(again.result).toMatchObject({ status: 304, changed: false, validators: stored });
    expect(again.counters.notModified).toBe(1);
  });

  it('a changed page answers 200: new validators, changed by its hash', async () => {
    version = 1;
    const first = await fetchAndComplete('/page');
    version = 2;
    const before = { ...answers };
    const next = await fetchAndComplete('/page', first.result.validators);
    expect(answers).toEqual({ full: before.full + 1, notModified: before.notModified });
    expect(next.result.changed).toBe(true);
    expect(next.result.validators?.etag).toBe('"v2"');
    expect(next.result.validators?.contentHash).not.toBe(first.result.validators?.contentHash);
  });

  it('without validators from the server, the content hash alone tells changed from unchanged', async () => {
    plainBody = 'same words';
    const first = await fetchAndComplete('/plain');
    expect(first.request.headers['if-none-match']).toBeUndefined();
    const same = await fetchAndComplete('/plain', first.result.validators);
    expect(same.result).toMatchObject({ status: 200, changed: false });
    plainBody = 'other words';
    const other = await fetchAndComplete('/plain', same.result.validators);
    expect(other.result).toMatchObject({ status: 200, changed: true });
  });
});
