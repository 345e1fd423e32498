import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HashRing, syntheticDomains } from '@shardline/ring';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sourceEnv } from '../../../test/helpers/source-runtime.js';
import { CLI, hasStackTrace, runCli } from './run-cli.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'shardline-cli-'));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function parseOwners(stdout: string): [string, string][] {
  return stdout
    .trimEnd()
    .split('\n')
    .map((line) => line.split('\t') as [string, string]);
}

describe('shardline ring owners', () => {
  it('prints domain<TAB>owner for hosts and URLs, skipping blanks and comments', async () => {
    const input = [
      'example.com',
      'https://news.bbc.co.uk/world?x=1',
      '',
      '# a comment',
      '   WWW.Example.COM.  ',
      'http://a.github.io/page',
      '127.0.0.1',
    ].join('\r\n');
    const result = await runCli(['ring', 'owners', '--pods', 'a,b,c'], input);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const ring = await HashRing.create(['a', 'b', 'c']);
    const domains = ['example.com', 'bbc.co.uk', 'example.com', 'a.github.io', '127.0.0.1'];
    expect(parseOwners(result.stdout)).toEqual(domains.map((d) => [d, ring.owner(d)]));
  });

  it('reports bad lines with their line number, still prints the good ones, exits 1', async () => {
    const input = 'good.example\nnot a host\n\nftp://files.example/x\nhttps://ok.example/\n';
    const result = await runCli(['ring', 'owners', '--pods', 'p1,p2'], input);
    expect(result.code).toBe(1);
    expect(parseOwners(result.stdout).map(([d]) => d)).toEqual(['good.example', 'ok.example']);
    const errors = result.stderr.trimEnd().split('\n');
    expect(errors[0]).toMatch(/^line 2: .*"not a host"$/);
    expect(errors[1]).toMatch(/^line 4: scheme "ftp:" .*"ftp:\/\/files.example\/x"$/);
    expect(errors[2]).toBe('error: 2 input lines were not a URL or host');
    expect(hasStackTrace(result.stderr)).toBe(false);
  });

  it('honours --weights, --vnodes and --seed exactly like the ring package', async () => {
    const domains = syntheticDomains(3000, 9);
    const result = await runCli(
      [
        'ring',
        'owners',
        '--pods',
        'a,b,c',
        '--weights',
        'a=3,c=0.5',
        '--vnodes',
        '64',
        '--seed',
        '77',
      ],
      `${domains.join('\n')}\n`,
    );
    expect(result.code).toBe(0);
    const ring = await HashRing.create([{ id: 'a', weight: 3 }, 'b', { id: 'c', weight: 0.5 }], {
      vnodes: 64,
      seed: 77,
    });
    expect(parseOwners(result.stdout)).toEqual(domains.map((d) => [d, ring.owner(d)]));
  });

  it('handles 200,000 input lines', async () => {
    const domains = syntheticDomains(200_000, 4);
    const result = await runCli(['ring', 'owners', '--pods', 'x,y,z,w'], domains.join('\n'));
    expect(result.code).toBe(0);
    const lines = parseOwners(result.stdout);
    expect(lines.length).toBe(200_000);
    const ring = await HashRing.create(['x', 'y', 'z', 'w']);
    let wrong = 0;
    for (let i = 0; i < lines.length; i++) {
      if (lines[i]![0] !== domains[i] || lines[i]![1] !== ring.owner(domains[i]!)) wrong++;
    }
    expect(wrong).toBe(0);
  });

  it('streams: answers a line before stdin is closed', { timeout: 15_000 }, async () => {
    const child = spawn(process.execPath, [CLI, 'ring', 'owners', '--pods', 'a,b'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: sourceEnv(),
    });
    let stdout = '';
    const firstLine = new Promise<void>((resolve) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        if (stdout.includes('\n')) resolve();
      });
    });
    child.stdin.write('first.example\n');
    await firstLine;
    expect(stdout).toMatch(/^first\.example\t(a|b)\n$/);
    child.stdin.end('second.example\n');
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(stdout.trimEnd().split('\n')).toHaveLength(2);
  });

  it('rejects bad options with one line on stderr and exit status 2', async () => {
    const cases: [string[], RegExp][] = [
      [['--pods', 'a,b,a'], /pod id "a" is listed twice/],
      [['--pods', 'a,,b'], /without empty entries/],
      [['--pods', 'a', '--vnodes', '0'], /--vnodes <n>.*integer from 1/],
      [['--pods', 'a', '--vnodes', '1.5'], /--vnodes <n>.*integer from 1/],
      [['--pods', 'a', '--seed', '-1'], /--seed <n>/],
      [['--pods', 'a,b', '--weights', 'a=0'], /weights > 0/],
      [['--pods', 'a,b', '--weights', 'q=2'], /--weights names pod "q", which is not in --pods/],
      [['--pods', 'bad\u0001id'], /member id must be/],
      [[], /required option '--pods <ids>'/],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(['ring', 'owners', ...args], 'example.com\n');
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(message);
    }
    // Nine CLI processes one after another: ~1 s each quiet, up to 8 s on a loaded 2-core machine.
  }, 180_000);
});

describe('shardline ring plan', () => {
  it('--add on synthetic domains: loads before/after and moved fraction vs k/(N+k)', async () => {
    const result = await runCli(['ring', 'plan', '--pods', '10', '--add', '1', '--json']);
    expect(result.code).toBe(0);
    const plan = JSON.parse(result.stdout);
    expect(plan).toMatchObject({
      change: 'add',
      podsBefore: 10,
      podsAfter: 11,
      added: ['pod-10'],
      removed: [],
      domains: { count: 100_000, source: 'synthetic', badLines: 0 },
    });
    const before = await HashRing.create(Array.from({ length: 10 }, (_, i) => `pod-${i}`));
    const after = before.add('pod-10');
    let moved = 0;
    const loadAfter = new Map<string, number>();
    for (const d of syntheticDomains(100_000)) {
      if (before.owner(d) !== after.owner(d)) moved++;
      loadAfter.set(after.owner(d), (loadAfter.get(after.owner(d)) ?? 0) + 1);
    }
    expect(plan.moved.domains).toBe(moved);
    expect(plan.moved.optimum).toBeCloseTo(1 / 11, 12);
    expect(plan.moved.ratioToOptimum).toBeCloseTo(moved / 100_000 / (1 / 11), 12);
    const rows = plan.load as { pod: string; before: number | null; after: number | null }[];
    expect(rows.find((r) => r.pod === 'pod-10')).toEqual({
      pod: 'pod-10',
      before: null,
      after: loadAfter.get('pod-10'),
    });
    expect(rows.reduce((s, r) => s + (r.before ?? 0), 0)).toBe(100_000);
    expect(rows.reduce((s, r) => s + (r.after ?? 0), 0)).toBe(100_000);
  });

  it('text output says the domains are synthetic and shows max/mean and the optimum', async () => {
    const result = await runCli(['ring', 'plan', '--pods', 'a,b,c,d', '--remove', '1']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('100,000 synthetic domains');
    expect(result.stdout).toMatch(/^ring plan: 4 → 3 pods \(remove d\)/);
    expect(result.stdout).toMatch(/^max\/mean\s+\d\.\d{3}\s+\d\.\d{3}$/m);
    expect(result.stdout).toMatch(/optimum k\/N = 1\/4 = 25\.00%/);
    expect(result.stdout).toMatch(/^d\s+[\d,]+\s+-$/m);
  });

  it('--domains FILE: distinct domain keys, bad lines reported as file:line, exit 1', async () => {
    const file = join(dir, 'domains.txt');
    writeFileSync(
      file,
      [
        '# seed list',
        'https://www.example.com/a',
        'example.com',
        'blog.example.org',
        'bad host',
        'other.net',
        '',
      ].join('\n'),
    );
    const result = await runCli([
      'ring',
      'plan',
      '--pods',
      '3',
      '--add',
      '2',
      '--domains',
      file,
      '--json',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${file}:5: `);
    expect(result.stderr).toMatch(/error: 1 line of .* was not a URL or host/);
    const plan = JSON.parse(result.stdout);
    expect(plan.domains).toEqual({ count: 3, source: 'file', file, badLines: 1 });
    expect(plan.added).toEqual(['pod-3', 'pod-4']);
    expect(plan.moved.optimum).toBeCloseTo(2 / 5, 12);
  });

  it('refuses contradictory or impossible plans and unreadable files', async () => {
    const cases: [string[], number, RegExp][] = [
      [['--pods', '5'], 2, /exactly one of --add <k> and --remove <k>/],
      [['--pods', '5', '--add', '1', '--remove', '1'], 2, /cannot be used with/],
      [['--pods', '3', '--remove', '3'], 2, /would leave no pods/],
      [['--pods', '0', '--add', '1'], 2, /--pods/],
      [
        ['--pods', '3', '--add', '1', '--domains', join(dir, 'missing.txt')],
        1,
        /cannot read .*missing\.txt.*ENOENT/,
      ],
    ];
    for (const [args, code, message] of cases) {
      const result = await runCli(['ring', 'plan', ...args]);
      expect(result.code, args.join(' ')).toBe(code);
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(message);
      expect(hasStackTrace(result.stderr)).toBe(false);
    }
  });
});

describe('shardline ring <unknown>', () => {
  it('names the unknown word and the ring commands, not "too many arguments for show"', async () => {
    const result = await runCli(['ring', 'locate', 'example.com']);
    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 2,
      stderr:
        'error: unknown ring command "locate": use show, owners or plan (shardline ring --help)\n',
    });
  });
});
