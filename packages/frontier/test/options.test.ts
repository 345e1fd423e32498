import { describe, expect, it } from 'vitest';
import { FrontierErrorCode, FrontierOptionsError } from '../src/errors.js';
import { FrontierInspector } from '../src/inspector.js';
import { resolveInspectorOptions, resolveOptions } from '../src/options.js';
import {
  HASH_MAX_LISTPACK_VALUE,
  SEEN_BUCKET_LOAD_MAX,
  SEEN_INLINE_MAX,
  SET_MAX_INTSET_ENTRIES,
  seenLayoutFor,
} from '../src/redis-settings.js';

// A stand-in with the one method the validation looks at; no connection is made.
const redis = { defineCommand() {} } as never;
const ownerOf = () => 'pod-a';

describe('resolveOptions', () => {
  it('fills the documented defaults', () => {
    expect(resolveOptions({ redis, ownerOf })).toMatchObject({
      prefix: 'sl',
      leaseTimeoutMs: 60_000,
      maxRetries: 3,
      defaultDelayMs: 1000,
      defaultConcurrency: 1,
      maxQueuedPerDomain: 1_000_000,
      packNewDomains: true,
      packAfterDomains: 1000,
    });
  });

  it('keeps leaseTimeoutMs 0 (leases never expire)', () => {
    expect(resolveOptions({ redis, ownerOf, leaseTimeoutMs: 0 }).leaseTimeoutMs).toBe(0);
  });

  it('names the option, the value and its type', () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ leaseTimeoutMs: -1 }, 'leaseTimeoutMs', /got -1 \(number\)/],
      [{ maxRetries: '3' }, 'maxRetries', /got "3" \(string\)/],
      [{ defaultConcurrency: 0 }, 'defaultConcurrency', /positive integer/],
      [{ prefix: 'a{b}' }, 'prefix', /got "a\{b\}"/],
      [{ adaptiveDelayFactor: Number.NaN }, 'adaptiveDelayFactor', /NaN/],
      [{ ownerOf: 'pod-a' }, 'ownerOf', /function/],
      [{ redis: {} }, 'redis', /ioredis/],
      [{ onBackgroundError: 'log' }, 'onBackgroundError', /got "log" \(string\)/],
      [{ seenBucketLoad: 0 }, 'seenBucketLoad', /integer from 1 to 100000, got 0/],
      [{ seenInlineMax: 1.5 }, 'seenInlineMax', /got 1.5 \(number\)/],
      [{ packNewDomains: 'yes' }, 'packNewDomains', /a boolean, got "yes"/],
      [{ packAfterDomains: -1 }, 'packAfterDomains', /non-negative integer, got -1/],
    ];
    for (const [extra, option, message] of cases) {
      let error: unknown;
      try {
        resolveOptions({ redis, ownerOf, ...extra } as never);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(FrontierOptionsError);
      expect(error).toMatchObject({ code: 'SHARDLINE_ERR_FRONTIER_OPTIONS', option });
      expect((error as Error).message).toMatch(message);
    }
  });
});

describe('resolveInspectorOptions', () => {
  it('needs only a client; the prefix defaults to the frontier default', () => {
    expect(resolveInspectorOptions({ redis })).toEqual({ redis, crawlId: 'default', prefix: 'sl' });
    expect(resolveInspectorOptions({ redis, prefix: 'crawl-2' }).prefix).toBe('crawl-2');
  });

  it('names the option, the value and its type', () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ redis: {} }, 'redis', /ioredis/],
      [{ redis, prefix: 'a b' }, 'prefix', /got "a b" \(string\)/],
    ];
    for (const [options, option, message] of cases) {
      let error: unknown;
      try {
        new FrontierInspector(options as never);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(FrontierOptionsError);
      expect(error).toMatchObject({ code: FrontierErrorCode.OPTIONS, option });
      expect((error as Error).message).toMatch(message);
    }
  });
});

describe('seenLayoutFor', () => {
  it("keeps every bucket an intset and the domain hash a listpack at the server's settings", () => {
    // Redis' defaults: 512 entries per intset, 64 B per listpack value.
    expect(seenLayoutFor(512, 64)).toEqual({ bucketLoad: 200, inlineMax: 8 });
    // What our Redis configurations set (docs/operations.md): the largest layout.
    expect(seenLayoutFor(SET_MAX_INTSET_ENTRIES, HASH_MAX_LISTPACK_VALUE)).toEqual({
      bucketLoad: SEEN_BUCKET_LOAD_MAX,
      inlineMax: SEEN_INLINE_MAX,
    });
    expect(seenLayoutFor(2048, 1024)).toEqual({ bucketLoad: 800, inlineMax: 128 });
    // Capped (a split reads one whole bucket), and never below a bucket of 16.
    expect(seenLayoutFor(1_000_000, 1_000_000)).toEqual({ bucketLoad: 800, inlineMax: 128 });
    expect(seenLayoutFor(4, 4)).toEqual({ bucketLoad: 16, inlineMax: 0 });
  });
});
