import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { MembershipOptionsError } from '../src/index.js';
import { resolveMembershipOptions } from '../src/options.js';

// A client object that never connects: validation only looks at it.
const redis = new Redis({ lazyConnect: true });

describe('resolveMembershipOptions', () => {
  it('applies the documented defaults', () => {
    const o = resolveMembershipOptions({ redis, podId: 'pod-1' });
    expect(o).toMatchObject({
      prefix: 'sl',
      weight: 1,
      sessionTimeoutMs: 10_000,
      heartbeatMs: 3333,
      vnodes: 8192,
      seed: 0,
      subscribe: true,
      reclaimLockMs: 30_000,
      sweepIntervalMs: 60_000,
      sweepBatch: 1000,
      reclaimOwnLeasesOnStart: true,
      handoffConcurrency: 16,
    });
    expect(resolveMembershipOptions({ redis, podId: 'p', sessionTimeoutMs: 20_000 })).toMatchObject(
      {
        heartbeatMs: 6666,
        reclaimLockMs: 60_000,
      },
    );
  });

  it.each([
    ['podId', { podId: 'has space' }],
    ['podId', { podId: '' }],
    ['weight', { weight: 0 }],
    ['weight', { weight: Number.NaN }],
    ['sessionTimeoutMs', { sessionTimeoutMs: 1.5 }],
    ['heartbeatMs', { heartbeatMs: 10_000 }],
    ['vnodes', { vnodes: 0 }],
    ['seed', { seed: -1 }],
    ['subscribe', { subscribe: 'yes' }],
    ['prefix', { prefix: 'a b' }],
    ['info', { info: 'tab\there' }],
    ['settings', { settings: { 'bad name': 1 } }],
    ['settings', { settings: { minDelayMs: Number.NaN } }],
    ['frontier', { frontier: 42 }],
    ['redis', { redis: {} }],
  ])('rejects a bad %s and names option, value and type', (option, patch) => {
    const attempt = () =>
      resolveMembershipOptions({ redis, podId: 'pod-1', ...(patch as object) } as never);
    expect(attempt).toThrow(MembershipOptionsError);
    try {
      attempt();
    } catch (error) {
      const e = error as MembershipOptionsError;
      expect(e.code).toBe('SHARDLINE_ERR_MEMBERSHIP_OPTIONS');
      expect(e.option).toBe(option);
      expect(e.message).toContain(option);
      expect(e.message).toMatch(/\((string|number|object|boolean|non-finite number)\)$/);
    }
  });
});
