import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hasStackTrace } from './run-cli.js';
import { runCliWith } from './run-cli-with.js';

interface Row {
  option: string;
  env: string;
  flag: string;
  value: unknown;
  source: string;
}

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'shardline-config-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** `shardline config --json` in `dir`, as a map by option name. */
async function settings(args: string[] = [], env: Record<string, string> = {}) {
  const result = await runCliWith(['config', '--json', ...args], { cwd: dir, env });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  const rows = JSON.parse(result.stdout) as Row[];
  return new Map(rows.map((row) => [row.option, row]));
}

describe('shardline config', () => {
  it('lists every setting with its default when nothing is given', async () => {
    const rows = await settings();
    expect(rows.get('minDelayMs')).toMatchObject({
      env: 'MIN_DELAY_MS',
      flag: '--min-delay-ms',
      source: 'default',
    });
    expect(rows.get('concurrency')).toMatchObject({ value: 64, source: 'default' });
    expect(rows.get('logLevel')).toMatchObject({ source: 'default' });
  });

  it('takes flag over env over file over default', async () => {
    const file = join(dir, 'my.yaml');
    writeFileSync(
      file,
      'concurrency: 5\nminDelayMs: 500\nuserAgentToken: from-file/1\nprefix: filep\n',
    );
    const rows = await settings(['--config', file, '--concurrency', '9'], {
      CONCURRENCY: '7',
      MIN_DELAY_MS: '600',
    });
    // flag > env > file
    expect(rows.get('concurrency')).toMatchObject({ value: 9, source: 'flag' });
    // env > file
    expect(rows.get('minDelayMs')).toMatchObject({ value: 600, source: 'env' });
    // file > default
    expect(rows.get('userAgentToken')).toMatchObject({ value: 'from-file/1', source: file });
    expect(rows.get('prefix')).toMatchObject({ value: 'filep', source: file });
    // flag > file without env
    const flagged = await settings(['--config', file, '--prefix', 'flagp']);
    expect(flagged.get('prefix')).toMatchObject({ value: 'flagp', source: 'flag' });
  });

  it('reads SHARDLINE_CONFIG, and a --config flag beats it', async () => {
    writeFileSync(join(dir, 'a.json'), JSON.stringify({ concurrency: 3 }));
    writeFileSync(join(dir, 'b.yaml'), 'concurrency: 4\n');
    const byEnv = await settings([], { SHARDLINE_CONFIG: 'a.json' });
    expect(byEnv.get('concurrency')).toMatchObject({ value: 3, source: join(dir, 'a.json') });
    const byFlag = await settings(['--config', 'b.yaml'], { SHARDLINE_CONFIG: 'a.json' });
    expect(byFlag.get('concurrency')).toMatchObject({ value: 4, source: join(dir, 'b.yaml') });
  });

  it('finds shardline.yaml in the data dir first, then the working directory', async () => {
    writeFileSync(join(dir, 'shardline.yaml'), 'concurrency: 11\n');
    const fromCwd = await settings();
    expect(fromCwd.get('concurrency')).toMatchObject({
      value: 11,
      source: join(dir, 'shardline.yaml'),
    });
    mkdirSync(join(dir, 'data'));
    writeFileSync(join(dir, 'data', 'shardline.yaml'), 'concurrency: 12\nredisUrl: redis://h:1\n');
    const fromDataDir = await settings(['--data-dir', 'data']);
    const path = join(dir, 'data', 'shardline.yaml');
    expect(fromDataDir.get('concurrency')).toMatchObject({ value: 12, source: path });
    expect(fromDataDir.get('redisUrl')).toMatchObject({ value: 'redis://h:1', source: path });
  });

  it('takes lists, booleans and durations as the environment does', async () => {
    writeFileSync(
      join(dir, 'shardline.yaml'),
      'allowDomains: [a.test, b.test]\nmaxRetries: 2\nexitWhenIdle: true\n',
    );
    const rows = await settings();
    expect(rows.get('allowDomains')?.value).toEqual(['a.test', 'b.test']);
    expect(rows.get('exitWhenIdle')?.source).toBe(join(dir, 'shardline.yaml'));
  });

  it.each([
    ['minDelay: 5\n', 'key minDelay: unknown option; did you mean minDelayMs?'],
    ['min-delay-ms: 5\n', 'key min-delay-ms: unknown option; did you mean minDelayMs?'],
    ['MAX_DEPTH: 5\n', 'key MAX_DEPTH: unknown option; did you mean maxDepth?'],
    [
      'flavour: 5\n',
      'key flavour: unknown option; use an option name from `shardline config` (e.g. minDelayMs)',
    ],
    ['concurrency: lots\n', 'key concurrency: must be a non-negative integer'],
    ['concurrency: 0\n', 'key concurrency: must be an integer in [1, 100000]'],
    ['logLevel: loud\n', 'key logLevel: must be one of fatal'],
    ['- 1\n- 2\n', 'must be a mapping of option names to values'],
    ['a: [\n', 'cannot be read as YAML or JSON'],
    ['a: [1\n', 'must be sufficiently indented and end with a ] at line 2, column 1\n'],
  ])('rejects %j with one line naming the file and key, exit 2', async (text, message) => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, text);
    const result = await runCliWith(['config', '--config', file], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`config file ${file}`);
    expect(result.stderr).toContain(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(hasStackTrace(result.stderr)).toBe(false);
  });

  it('up checks its config file (found in --data-dir) before any pod starts', async () => {
    writeFileSync(join(dir, 'shardline.yaml'), 'concurency: 4\n');
    const result = await runCliWith(['up', '--pods', '1', '--data-dir', dir], { cwd: tmpdir() });
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      `error: config file ${join(dir, 'shardline.yaml')}: key concurency: unknown option; did you mean concurrency? (\`shardline config\` lists the options)`,
    );
    expect(existsSync(join(dir, 'cluster.json'))).toBe(false);
  });

  it('names the flag or the variable of a value out of bounds', async () => {
    const byFlag = await runCliWith(['config', '--claim-lead-ms', '5000'], { cwd: dir });
    const byEnv = await runCliWith(['config'], { cwd: dir, env: { RESOLVE: 'a.test=1.2.3.4' } });
    expect([byFlag.code, byEnv.code]).toEqual([2, 2]);
    expect(byFlag.stderr).toMatch(
      /^error: --claim-lead-ms must be an integer in \[0, 1000\], got 5000\n$/,
    );
    expect(byEnv.stderr).toMatch(
      /^error: environment variable RESOLVE must be host:address, .+, got "a\.test=1\.2\.3\.4"\n$/,
    );
  });

  it('fails with exit 2 when the named file does not exist', async () => {
    const result = await runCliWith(['config', '--config', 'nope.yaml'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('nope.yaml: not found (from --config nope.yaml)');
  });

  it('prints a table with the file and each source', async () => {
    writeFileSync(join(dir, 'shardline.yaml'), 'minDelayMs: 500\n');
    const result = await runCliWith(['config'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`config file: ${join(dir, 'shardline.yaml')}`);
    expect(result.stdout).toMatch(/^minDelayMs\s+500\s+\S*shardline\.yaml\s+MIN_DELAY_MS$/m);
  });
});
