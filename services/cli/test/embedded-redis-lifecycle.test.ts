/**
 * The embedded Redis is never orphaned and never silently reused (issue 15), and a finished
 * crawl stays readable (issue 14): real `shardline crawl` processes, killed the hard way.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../../test/helpers/redis.js';
import { runCliWith } from './run-cli-with.js';
import { isAlive, type LiveCli, spawnCli } from './spawn-cli.js';

const root = mkdtempSync(join(tmpdir(), 'sl-embedded-life-'));
const live: LiveCli[] = [];
const strays: number[] = [];
afterEach(() => {
  for (const cli of live.splice(0)) cli.kill();
  for (const pid of strays.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The redis-server pid the crawl recorded in its port file. */
async function crawlWithEmbeddedRedis(
  dataDir: string,
): Promise<{ cli: LiveCli; redisPid: number }> {
  const cli = spawnCli(['crawl', '--data-dir', dataDir, '--log-level', 'info']);
  live.push(cli);
  const portFile = join(dataDir, 'redis', 'redis.port');
  let redisPid = 0;
  await vi.waitFor(
    () => {
      expect(cli.stderr()).toContain('"msg":"embedded redis"');
      redisPid = (JSON.parse(readFileSync(portFile, 'utf8')) as { pid: number }).pid;
    },
    { timeout: 30_000, interval: 100 },
  );
  strays.push(redisPid);
  return { cli, redisPid };
}

describe('the embedded redis-server', () => {
  for (const signal of ['SIGKILL', 'SIGHUP'] as const) {
    it(`stops when its crawl ends by ${signal} (never orphaned)`, async () => {
      const dataDir = join(root, `kill-${signal}`);
      const { cli, redisPid } = await crawlWithEmbeddedRedis(dataDir);
      expect(isAlive(redisPid)).toBe(true);
      cli.child.kill(signal);
      await cli.exited;
      await vi.waitFor(() => expect(isAlive(redisPid)).toBe(false), {
        timeout: 15_000,
        interval: 200,
      });
    }, 60_000);
  }

  it('a leftover server whose crawl is gone is detected, stopped and replaced, not silently reused', async () => {
    const dataDir = join(root, 'leftover');
    const redisDir = join(dataDir, 'redis');
    mkdirSync(redisDir, { recursive: true });
    const port = await freePort();
    const leftover = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', redisDir, '--save', ''],
      { stdio: 'ignore', detached: true },
    );
    strays.push(leftover.pid!);
    await vi.waitFor(
      () =>
        execFileSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }) ===
          'PONG\n' || expect.fail('no PONG'),
      { timeout: 10_000, interval: 100 },
    );
    // The owner recorded is a process that no longer exists.
    const gone = spawn('true');
    await new Promise((r) => gone.on('exit', r));
    writeFileSync(
      join(redisDir, 'redis.port'),
      JSON.stringify({ port, pid: leftover.pid, owner: gone.pid }),
    );
    const { cli, redisPid } = await crawlWithEmbeddedRedis(dataDir);
    expect(cli.stderr()).toMatch(/stopping a leftover embedded Redis \(port \d+, pid \d+\)/);
    expect(redisPid).not.toBe(leftover.pid);
    await vi.waitFor(() => expect(isAlive(leftover.pid!)).toBe(false), { timeout: 15_000 });
    cli.child.kill('SIGTERM');
    await cli.exited;
  }, 60_000);

  it('a stale port file (nothing answers) is replaced with a notice', async () => {
    const dataDir = join(root, 'stale');
    mkdirSync(join(dataDir, 'redis'), { recursive: true });
    writeFileSync(join(dataDir, 'redis', 'redis.port'), `${await freePort()}\n`);
    const { cli } = await crawlWithEmbeddedRedis(dataDir);
    expect(cli.stderr()).toMatch(
      /removing the stale .*redis\.port \(nothing answers on port \d+\)/,
    );
    cli.child.kill('SIGTERM');
    await cli.exited;
  }, 60_000);

  it('stats, domains, domain and dead-letters read a stopped crawl from its data, and stop the server after', async () => {
    const dataDir = join(root, 'finished');
    const { cli } = await crawlWithEmbeddedRedis(dataDir);
    // The seed needs a registered pod to own its URLs: the server answers before the pod joins.
    await vi.waitFor(() => expect(cli.stderr()).toContain('"msg":"membership joined"'), {
      timeout: 30_000,
      interval: 100,
    });
    const seeded = await runCliWith([
      'seed',
      '--data-dir',
      dataDir,
      'http://readable.test/a',
      'http://readable.test/b',
    ]);
    expect(seeded.stderr).toBe('');
    cli.child.kill('SIGTERM');
    await cli.exited;
    expect(() => readFileSync(join(dataDir, 'redis', 'redis.port'))).toThrow();

    const stats = await runCliWith(['stats', '--data-dir', dataDir, '--json']);
    expect(stats.stderr).toBe('');
    expect(stats.code).toBe(0);
    expect(JSON.parse(stats.stdout)).toMatchObject({ counters: { enqueued: 2 } });
    const domains = await runCliWith(['domains', '--data-dir', dataDir]);
    expect(domains.code).toBe(0);
    expect(domains.stdout).toContain('readable.test');
    const domain = await runCliWith(['domain', 'readable.test', '--data-dir', dataDir]);
    expect(domain.code).toBe(0);
    const dead = await runCliWith(['dead-letters', '--data-dir', dataDir]);
    expect(dead.code).toBe(0);
    // Each command stopped the server it started.
    expect(() => readFileSync(join(dataDir, 'redis', 'redis.port'))).toThrow();
    const running = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
    expect(running).not.toContain(join(dataDir, 'redis'));
  }, 120_000);
});
