/**
 * The packages work as a user installs them: `npm run build`, `npm pack` every workspace,
 * `npm install` all the tarballs at once into an empty project (their dependencies come from
 * the registry, served from npm's cache where `npm ci` filled it), then plain `node` — no tsx,
 * no repository sources — imports each package and uses it (`pack/check-installed.mjs`), and
 * the installed `shardline` bin answers.
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from './helpers/redis.js';

const ROOT = resolve(import.meta.dirname, '..');
/** Every workspace: what a user imports, and what the `shardline` bin needs to run. */
const PACKAGES = [
  'api',
  'cli',
  'crawler',
  'dns',
  'frontier',
  'membership',
  'ring',
  'robots',
  'url',
  'urlfrontier',
  'warc',
];
const MINUTES = 60_000;

interface PackedFile {
  path: string;
}
interface Packed {
  name: string;
  filename: string;
  files: PackedFile[];
}

/**
 * A user's environment: none of the npm settings `npm test` passes to its children
 * (`npm_config_*`, which would point a nested npm at this repository) and no NODE_OPTIONS.
 */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(name) || name === 'INIT_CWD' || name === 'NODE_OPTIONS') continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}

/** Runs a command to completion; throws with its output unless it exits 0. */
function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; input?: string; env?: Record<string, string>; timeoutMs?: number },
): string {
  const result = spawnSync(command, args, {
    cwd: options.cwd,
    input: options.input,
    env: userEnv(options.env),
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 5 * MINUTES,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited ${result.status ?? result.signal}\n${result.stdout}\n${result.stderr}`,
    );
  }
  return result.stdout;
}

describe('the packed packages, installed into an empty project', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'shardline-pack-'));
  const packs = join(scratch, 'packs');
  const project = join(scratch, 'project');
  let redis: RedisServer;
  let packed: Packed[];

  beforeAll(async () => {
    redis = await startRedis();
    run('npm', ['run', 'build'], { cwd: ROOT });
    mkdirSync(packs);
    packed = JSON.parse(
      run('npm', ['pack', '--json', '--workspaces', '--pack-destination', packs], { cwd: ROOT }),
    ) as Packed[];
    mkdirSync(project);
    writeFileSync(
      join(project, 'package.json'),
      `${JSON.stringify({ name: 'pack-check', private: true, type: 'module' }, null, 2)}\n`,
    );
    run(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        ...packed.map((p) => join(packs, p.filename)),
      ],
      { cwd: project, timeoutMs: 10 * MINUTES },
    );
  }, 15 * MINUTES);

  afterAll(async () => {
    await redis?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('packs each workspace with its compiled dist/, and neither tests nor build state', () => {
    expect(packed.map((p) => p.name).sort()).toEqual(PACKAGES.map((name) => `@shardline/${name}`));
    for (const pack of packed) {
      const paths = pack.files.map((f) => f.path);
      expect(paths, pack.name).toContain('dist/index.js');
      expect(paths, pack.name).toContain('dist/index.d.ts');
      expect(
        paths.filter((p) => /(^|\/)test\/|\.test\.|tsbuildinfo|(^|\/)bench\//.test(p)),
        pack.name,
      ).toEqual([]);
    }
    const files = (name: string) => packed.find((p) => p.name === name)!.files.map((f) => f.path);
    expect(files('@shardline/frontier')).toContain('lua/claim-2.lua');
    expect(files('@shardline/membership')).toContain('lua/heartbeat-8.lua');
    expect(files('@shardline/api')).toContain('public/dashboard.html');
    expect(files('@shardline/cli')).toContain('bin/shardline.js');
    expect(files('@shardline/urlfrontier')).toContain('proto/urlfrontier.proto');
  });

  it('installs every @shardline package from its tarball, and no tsx', () => {
    const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { resolved?: string }>;
    };
    for (const name of PACKAGES) {
      expect(lock.packages[`node_modules/@shardline/${name}`]?.resolved, name).toMatch(/^file:/);
    }
    expect(existsSync(join(project, 'node_modules', 'tsx'))).toBe(false);
  });

  it('imports and uses every package with plain node', { timeout: 2 * MINUTES }, () => {
    copyFileSync(join(ROOT, 'test', 'pack', 'check-installed.mjs'), join(project, 'check.mjs'));
    const stdout = run(process.execPath, ['check.mjs'], {
      cwd: project,
      env: { REDIS_URL: redis.url },
      timeoutMs: 2 * MINUTES,
    });
    // The API's request log shares stdout; the script's answer is the last line.
    const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(result).toEqual({
      url: { url: 'http://news.bbc.co.uk/a/c?id=1', domain: 'bbc.co.uk' },
      ringOwner: expect.stringMatching(/^[abc]$/),
      robots: { publicAllowed: true, privateAllowed: false, crawlDelayMs: 2000 },
      warc: { files: 1, type: 'response' },
      dns: ['127.0.0.1'],
      frontier: { queued: 1, claimed: ['https://site1.test/page'] },
      crawler: { podId: 'pack-pod', minDelayMs: 250 },
      members: ['pack-pod'],
      api: { health: 200, dashboard: 200, dashboardIsHtml: true },
    });

    // The installed bin agrees with the installed library on who owns the domain.
    const bin = join(project, 'node_modules', '.bin', 'shardline');
    expect(run(bin, ['--help'], { cwd: project })).toMatch(/^Usage: shardline /);
    const owners = run(bin, ['ring', 'owners', '--pods', 'a,b,c'], {
      cwd: project,
      input: 'news.bbc.co.uk\n',
    });
    expect(owners).toBe(`bbc.co.uk\t${result.ringOwner as string}\n`);
  });
});
