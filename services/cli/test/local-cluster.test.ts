/**
 * `shardline up / scale / status / down` end to end: the real binary, a real Redis, real
 * crawl pods (nothing to crawl) joining the real membership registry. Every process the
 * test saw is SIGKILLed in afterAll, whatever failed.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MembershipReader } from '@shardline/membership';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { sourceEnv } from '../../../test/helpers/source-runtime.js';
import { findEmbeddedRedis } from '../src/embedded-redis.js';
import { type ClusterFile, isAlive } from '../src/local-cluster/control-file.js';
import { CLI, hasStackTrace } from './run-cli.js';
import { runCliWith } from './run-cli-with.js';

let server: RedisServer;
let redis: Redis;
let dir: string;
const seen = new Set<number>();

function cluster(dataDir: string): ClusterFile | undefined {
  try {
    const file = JSON.parse(readFileSync(join(dataDir, 'cluster.json'), 'utf8')) as ClusterFile;
    seen.add(file.supervisorPid);
    for (const pod of file.pods) if (pod.pid !== undefined) seen.add(pod.pid);
    return file;
  } catch {
    return undefined;
  }
}

async function until<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The POD_ID a live process was started with (Linux /proc). */
function podIdOf(pid: number): string | undefined {
  const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
  return env.find((entry) => entry.startsWith('POD_ID='))?.slice('POD_ID='.length);
}

/** Registry members that are alive, by id. */
async function members(): Promise<string[]> {
  const list = await new MembershipReader(redis).members();
  return list.filter((m) => m.alive).map((m) => m.id);
}

const cli = (args: string[]) => runCliWith([...args, '--data-dir', dir]);

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url);
  dir = mkdtempSync(join(tmpdir(), 'sl-local-cluster-'));
});

afterAll(async () => {
  cluster(dir);
  for (const pid of seen) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  await redis?.quit();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('local cluster (up / scale / status / down)', () => {
  it('up --pods 2 --detach returns once pods local-0 and local-1 have joined the registry', async () => {
    // The data dir's config file is checked by up and handed to every pod.
    writeFileSync(join(dir, 'shardline.yaml'), 'maxLinksPerPage: 50\n');
    // Redis holds every write for 4 s: the pods are alive long before they can join, and a
    // `seed` right after `up` must still find them in the registry.
    await redis.call('CLIENT', 'PAUSE', '4000', 'WRITE');
    const up = await cli([
      'up',
      '--pods',
      '2',
      '--detach',
      '--redis',
      server.url,
      '--min-delay-ms',
      '10',
    ]);
    expect(up.stderr).toMatch(
      /local cluster up: 2 pod\(s\) local-0 \(pid \d+\), local-1 \(pid \d+\)/,
    );
    expect(up.code).toBe(0);
    const file = cluster(dir)!;
    // The file holds the control token: owner-only.
    expect(statSync(join(dir, 'cluster.json')).mode & 0o777).toBe(0o600);
    expect(file.redis).toEqual({ url: server.url, embedded: false });
    expect(isAlive(file.supervisorPid)).toBe(true);
    expect(file.pods.map((p) => [p.id, p.state])).toEqual([
      ['local-0', 'running'],
      ['local-1', 'running'],
    ]);
    for (const pod of file.pods) {
      expect(isAlive(pod.pid!)).toBe(true);
      expect(podIdOf(pod.pid!)).toBe(pod.id);
      expect(readFileSync(`/proc/${pod.pid}/cmdline`, 'utf8').split('\0')).toContain('crawl');
      // The passed-through crawl option reached the pod.
      expect(readFileSync(`/proc/${pod.pid}/cmdline`, 'utf8')).toContain('--min-delay-ms\u000010');
      expect(readFileSync(`/proc/${pod.pid}/cmdline`, 'utf8')).toContain(
        `--config\u0000${join(dir, 'shardline.yaml')}`,
      );
    }
    expect(await members()).toEqual(['local-0', 'local-1']);
  });

  it('refuses a second up on the same data dir with one line', async () => {
    const again = await cli(['up', '--pods', '1', '--detach', '--redis', server.url]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      /^error: a local cluster is already running in .* \(supervisor pid \d+, 2 pods\)/,
    );
    expect(hasStackTrace(again.stderr)).toBe(false);
  });

  it('the control channel refuses a request without the token', async () => {
    const file = cluster(dir)!;
    const res = await fetch(`http://127.0.0.1:${file.port}/scale`, {
      method: 'POST',
      body: JSON.stringify({ pods: 0 }),
    });
    expect(res.status).toBe(401);
    expect(cluster(dir)!.pods).toHaveLength(2);
  });

  it('scale 3 starts local-2 and returns once it has joined the registry', async () => {
    // As for up: the new pod is alive long before it can join; a seed right after scale
    // must find it as an owner.
    await redis.call('CLIENT', 'PAUSE', '3000', 'WRITE');
    const scaled = await cli(['scale', '3']);
    expect(scaled.stdout).toBe('started local-2\nlocal cluster: 3 pod(s)\n');
    expect(scaled.code).toBe(0);
    expect(await members()).toEqual(['local-0', 'local-1', 'local-2']);
    const file = cluster(dir)!;
    expect(file.pods.map((p) => [p.id, p.state])).toEqual([
      ['local-0', 'running'],
      ['local-1', 'running'],
      ['local-2', 'running'],
    ]);
    for (const pod of file.pods) expect(isAlive(pod.pid!)).toBe(true);
    expect(podIdOf(file.pods[2]!.pid!)).toBe('local-2');
  });

  it('a pod killed with SIGKILL is restarted under the same id', async () => {
    const before = cluster(dir)!.pods[1]!;
    process.kill(before.pid!, 'SIGKILL');
    const after = await until(() => {
      const pod = cluster(dir)?.pods[1];
      return pod?.pid !== undefined && pod.pid !== before.pid && pod.state === 'running'
        ? pod
        : undefined;
    });
    expect(after).toMatchObject({ id: 'local-1', restarts: 1, lastExit: 'signal SIGKILL' });
    expect(isAlive(before.pid!)).toBe(false);
    expect(podIdOf(after.pid!)).toBe('local-1');
    const status = await cli(['status']);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^local-1\s+\d+\s+running\s+\S+\s+1\s+signal SIGKILL$/m);
    expect(status.stdout).not.toContain(cluster(dir)!.token);
  });

  it('scale 1 stops local-1 and local-2 gracefully: exit code 0 after SIGTERM, registry left', async () => {
    // The restarted local-1 must have rejoined (and set its SIGTERM handler) first.
    await until(async () => ((await members()).length === 3 ? true : undefined));
    const pids = cluster(dir)!.pods.map((p) => p.pid!);
    const scaled = await cli(['scale', '1']);
    expect(scaled.code).toBe(0);
    expect(scaled.stdout).toMatch(
      /^stopped local-1 in \d+ ms \(exit code 0\)\nstopped local-2 in \d+ ms \(exit code 0\)\nlocal cluster: 1 pod\(s\)\n$/,
    );
    expect(pids.map(isAlive)).toEqual([true, false, false]);
    expect(cluster(dir)!.pods.map((p) => p.id)).toEqual(['local-0']);
    // A graceful leave removes the member at once (no session timeout to wait for).
    expect(await members()).toEqual(['local-0']);
  });

  it('scale gives up waiting after --join-timeout-ms with one line; the pod keeps starting', async () => {
    await redis.call('CLIENT', 'PAUSE', '2500', 'WRITE');
    const scaled = await cli(['scale', '2', '--join-timeout-ms', '300']);
    expect(scaled.code).toBe(1);
    expect(scaled.stdout).toBe('started local-1\n');
    expect(scaled.stderr).toMatch(
      /^error: pod\(s\) local-1 had not joined the registry after 300 ms \(is Redis writable\?\)/,
    );
    expect(scaled.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(cluster(dir)!.pods.map((p) => p.id)).toEqual(['local-0', 'local-1']);
    // It joins once the pause ends; the supervisor marks it running when it says so.
    await until(() => (cluster(dir)?.pods[1]?.state === 'running' ? true : undefined));
    expect(await members()).toEqual(['local-0', 'local-1']);
  });

  it('down stops every process and removes the control file', async () => {
    const file = cluster(dir)!;
    const down = await cli(['down']);
    expect(down.code).toBe(0);
    expect(down.stdout).toMatch(
      /^stopped local-0 in \d+ ms \(exit code 0\)\nstopped local-1 in \d+ ms \(exit code 0\)\nlocal cluster down\n$/,
    );
    expect(cluster(dir)).toBeUndefined();
    await until(() => (isAlive(file.supervisorPid) ? undefined : true), 5000);
    for (const pid of seen) expect(isAlive(pid)).toBe(false);
    expect(await members()).toEqual([]);
    // The log kept every pod's lines under its id.
    const log = readFileSync(join(dir, 'cluster.log'), 'utf8');
    for (const id of ['local-0', 'local-1', 'local-2']) {
      expect(log).toMatch(new RegExp(`^${id} +\\| .*"msg":"pod starting"`, 'm'));
    }
  });

  it('scale, status and down without a cluster fail with one line', async () => {
    const results = await Promise.all([['scale', '2'], ['status'], ['down']].map(cli));
    for (const result of results) {
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /^error: no local cluster is running \(no .*cluster\.json\); start one with `shardline up --pods N`\n$/,
      );
    }
  });
});

describe('local cluster in the foreground', () => {
  it('starts the embedded Redis without --redis, follows the pods output, and SIGINT (Ctrl-C) brings pods then Redis down', async () => {
    const dataDir = join(dir, 'foreground');
    const env: Record<string, string | undefined> = { ...process.env };
    delete env.REDIS_URL;
    const up = spawn(process.execPath, [CLI, 'up', '--pods', '1', '--data-dir', dataDir], {
      env: sourceEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (up.pid) seen.add(up.pid);
    let stdout = '';
    let stderr = '';
    up.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    up.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    const exited = new Promise<number | null>((done) => up.once('close', (code) => done(code)));
    // A supervisor, an embedded Redis and a pod, each a Node process starting from the sources:
    // 24 s measured on a 2-core machine under load 15.
    await until(() => (stderr.includes('local cluster up: 1 pod(s)') ? true : undefined), 90_000);
    const file = cluster(dataDir)!;
    expect(file.redis.embedded).toBe(true);
    const port = findEmbeddedRedis(join(dataDir, 'redis'))?.port ?? 0;
    expect(file.redis.url).toBe(`redis://127.0.0.1:${port}`);
    const client = new Redis(file.redis.url);
    try {
      const reader = new MembershipReader(client);
      await until(async () =>
        (await reader.members()).some((m) => m.id === 'local-0' && m.alive) ? true : undefined,
      );
    } finally {
      client.disconnect();
    }
    await until(() => (/^local-0 +\| .*"msg":"pod starting"/m.test(stdout) ? true : undefined));
    // The read commands find the same embedded Redis through the same --data-dir.
    const pods = await runCliWith(['pods', '--json', '--data-dir', dataDir]);
    expect(pods.code).toBe(0);
    expect((JSON.parse(pods.stdout) as { pods: { id: string }[] }).pods.map((p) => p.id)).toEqual([
      'local-0',
    ]);
    up.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(stderr).toContain('SIGINT: stopping the local cluster gracefully');
    expect(stdout).toMatch(/^supervisor +\| local-0 stopped in \d+ ms \(code 0\)$/m);
    expect(stdout).toMatch(/^supervisor +\| embedded redis stopped$/m);
    expect(stdout).toMatch(/^supervisor +\| local cluster down$/m);
    expect(existsSync(join(dataDir, 'redis', 'redis.port'))).toBe(false);
    const refused = await new Promise<string>((done) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        done('connected');
      });
      socket.once('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
    });
    expect(refused).toBe('ECONNREFUSED');
    expect(cluster(dataDir)).toBeUndefined();
    expect(isAlive(file.pods[0]!.pid!)).toBe(false);
    await until(() => (isAlive(file.supervisorPid) ? undefined : true), 5000);
  });
});

describe('up with a Redis that does not answer', () => {
  it('exits 1 with one line naming it before any pod starts', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sl-up-no-redis-'));
    try {
      const url = `redis://127.0.0.1:${await freePort()}`;
      const up = await runCliWith(['up', '--pods', '2', '--redis', url, '--data-dir', dataDir]);
      expect(up.code).toBe(1);
      expect(up.stderr).toBe(`error: cannot reach Redis at ${url}: ECONNREFUSED\n`);
      expect(up.stdout).toBe('');
      expect(cluster(dataDir)).toBeUndefined();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
