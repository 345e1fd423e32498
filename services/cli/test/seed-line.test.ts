import { FrontierRejectCode } from '@shardline/frontier';
import { describe, expect, it } from 'vitest';
import { parseSeedLine, SEED_SYNTAX_CODE } from '../src/lib/seed-line.js';

describe('seed line refetch=', () => {
  it('turns refetch=1d into the item’s refetch interval', () => {
    expect(parseSeedLine('https://a.test/ refetch=1d priority=2')).toEqual({
      ok: true,
      item: { url: 'https://a.test/', priority: 2, refetchAfterMs: 86_400_000 },
    });
    expect(parseSeedLine('https://a.test/ refetch=90m')).toMatchObject({
      item: { refetchAfterMs: 5_400_000 },
    });
  });

  it('refuses a refetch that is not a duration of at most a year, naming it', () => {
    for (const bad of ['refetch=soon', 'refetch=0', 'refetch=2y', 'refetch=400d', 'refetch=']) {
      const line = parseSeedLine(`https://a.test/ ${bad}`);
      expect(line).toMatchObject({ ok: false, code: SEED_SYNTAX_CODE });
      expect(line.ok ? '' : line.reason).toMatch(/^refetch must be a duration like 500ms/);
    }
    // The frontier's own check has a code of its own, for callers that skip the CLI.
    expect(FrontierRejectCode.REFETCH).toBe('SHARDLINE_ERR_FRONTIER_REFETCH');
  });
});
