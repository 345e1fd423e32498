import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasStackTrace, runCli } from './run-cli.js';

const { version } = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8'),
) as { version: string };

describe('shardline', () => {
  it('--help lists the command groups and exits 0', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: shardline');
    expect(result.stdout).toMatch(/^\s+ring\s/m);
    expect(result.stderr).toBe('');
  });

  it('every ring command has --help', async () => {
    for (const args of [
      ['ring', '--help'],
      ['ring', 'owners', '--help'],
      ['ring', 'plan', '--help'],
    ]) {
      const result = await runCli(args);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain(`Usage: shardline ${args.slice(0, -1).join(' ')}`);
    }
  });

  it('--version prints the package version', async () => {
    const result = await runCli(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(version);
  });

  it('an unknown command is one line on stderr and exit status 2', async () => {
    const result = await runCli(['rign']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')[0]).toBe("error: unknown command 'rign'");
    expect(hasStackTrace(result.stderr)).toBe(false);
  });
});
