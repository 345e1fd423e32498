/** `shardline api` names API_TOKEN in its help; a too-short token is a configuration error. */
import { describe, expect, it } from 'vitest';
import { hasStackTrace } from './run-cli.js';
import { runCliWith } from './run-cli-with.js';

describe('shardline api configuration', () => {
  it('--help names API_TOKEN and its length rule', async () => {
    const result = await runCliWith(['api', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/API_TOKEN\s+bearer token of the mutating routes/);
    expect(result.stdout).toContain('16 characters');
  });

  it('a too-short API_TOKEN is one usage line (exit 2), not an internal error', async () => {
    const result = await runCliWith(['api', '--redis', 'redis://127.0.0.1:1'], {
      env: { API_TOKEN: 'short' },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('error: API_TOKEN must be at least 16 characters, got "<hidden>"\n');
    expect(hasStackTrace(result.stderr)).toBe(false);
  });
});
