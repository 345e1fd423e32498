/**
 * The supervisor's restart policy and stop escalation, on real child processes (tiny
 * `node -e` scripts standing in for crawl pods, so each case takes well under a second).
 */
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive, joinProgress, type PodStatus } from '../src/local-cluster/control-file.js';
import { READY_IPC_ENV, READY_MESSAGE } from '../src/local-cluster/ready-signal.js';
import { Supervisor, type SupervisorOptions } from '../src/local-cluster/supervisor.js';

const live: Supervisor[] = [];
afterEach(async () => {
  for (const s of live.splice(0)) {
    // Leave nothing behind even when an assertion failed mid-test.
    for (const pod of s.status()) if (pod.pid !== undefined) process.kill(pod.pid, 'SIGKILL');
  }
});

function supervisor(script: string, options: Partial<SupervisorOptions> = {}) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.setEncoding('utf8').on('data', (c: string) => {
    out += c;
  });
  stderr.setEncoding('utf8').on('data', (c: string) => {
    err += c;
  });
  const s = new Supervisor({
    command: [process.execPath, '-e', script],
    env: process.env,
    stdout,
    stderr,
    restartDelayMs: 20,
    ...options,
  });
  live.push(s);
  return { s, out: () => out, err: () => err };
}

async function until<T>(probe: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

// Prints its POD_ID, says it has joined, then waits; exits 0 on SIGTERM like a crawl pod
// that handed off.
const POD = `process.on('SIGTERM', () => process.exit(0)); setInterval(() => {}, 1000);
console.log('hello from ' + process.env.POD_ID); process.send(${JSON.stringify(READY_MESSAGE)});`;

describe('Supervisor', () => {
  it('gives each pod its POD_ID and prefixes its output lines with it', async () => {
    const { s, out } = supervisor(POD);
    expect((await s.scale(2)).started).toEqual(['local-0', 'local-1']);
    await until(() => (out().includes('local-1') && out().includes('local-0') ? true : undefined));
    expect(out()).toMatch(/^local-0 {4}\| hello from local-0$/m);
    expect(out()).toMatch(/^local-1 {4}\| hello from local-1$/m);
    await until(() => (s.status().every((p) => p.state === 'running') ? true : undefined));
    const stopped = await s.down();
    expect(stopped.map((p) => [p.id, p.code, p.killed])).toEqual([
      ['local-0', 0, false],
      ['local-1', 0, false],
    ]);
  });

  it('counts a pod as running only once it says it has joined', async () => {
    // local-0 says so (as a crawl pod does after joining the registry); local-1 never does.
    const script = `process.on('SIGTERM', () => process.exit(0)); setInterval(() => {}, 1000);
      if (process.env.POD_ID === 'local-0' && process.env.${READY_IPC_ENV} === '1')
        setTimeout(() => process.send(${JSON.stringify(READY_MESSAGE)}), 200);`;
    const { s } = supervisor(script);
    await s.scale(2);
    expect(s.status().map((p) => p.state)).toEqual(['starting', 'starting']);
    await until(() => (s.status()[0]?.state === 'running' ? true : undefined));
    expect(s.status()[1]).toMatchObject({ id: 'local-1', state: 'starting' });
    expect(isAlive(s.status()[1]!.pid!)).toBe(true);
    await s.down();
  });

  it('restarts a killed pod under the same id and counts the restart', async () => {
    const { s } = supervisor(POD);
    await s.scale(1);
    const first = await until(() => s.status()[0]?.pid);
    process.kill(first, 'SIGKILL');
    const second = await until(() => {
      const pod = s.status()[0];
      return pod?.pid !== undefined && pod.pid !== first ? pod : undefined;
    });
    expect(second).toMatchObject({ id: 'local-0', restarts: 1, lastExit: 'signal SIGKILL' });
    expect(isAlive(second.pid!)).toBe(true);
    await s.down();
  });

  it('reports a crash-looping pod as failed instead of restarting it forever', async () => {
    const { s, err } = supervisor('process.exit(3)', { crashLoopLimit: 2 });
    await s.scale(1);
    const pod = await until(() => (s.status()[0]?.state === 'failed' ? s.status()[0] : undefined));
    // Limit 2: the first start plus two restarts, then it is left down.
    expect(pod).toMatchObject({ restarts: 2, lastExit: 'code 3', pid: undefined });
    expect(err()).toMatch(/local-0 is crash-looping \(3 exits in a row, last code 3/);
    await new Promise((r) => setTimeout(r, 200));
    expect(s.status()[0]).toMatchObject({ state: 'failed', restarts: 2 });
  });

  it('gives up a pod that exits with a usage error at once, keeping its error line', async () => {
    // What `shardline crawl` does with a handler that cannot load: one line, status 2.
    const script = `process.stderr.write('error: handler ./h.mjs: no such file (/x/h.mjs)\\n');
      process.exitCode = 2;`;
    const { s, err } = supervisor(script, { crashLoopLimit: 5 });
    await s.scale(1);
    const pod = await until(() => (s.status()[0]?.state === 'failed' ? s.status()[0] : undefined));
    expect(pod).toMatchObject({
      restarts: 0,
      lastExit: 'code 2',
      lastError: 'handler ./h.mjs: no such file (/x/h.mjs)',
    });
    expect(err()).toMatch(
      /local-0 refused its settings \(code 2, a usage error: handler \.\/h\.mjs: no such file/,
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(s.status()[0]).toMatchObject({ state: 'failed', restarts: 0 });
  });

  it('does not restart a pod that exits 0 on its own', async () => {
    const { s } = supervisor('setTimeout(() => process.exit(0), 50)');
    await s.scale(1);
    const pod = await until(() => (s.status()[0]?.state === 'exited' ? s.status()[0] : undefined));
    expect(pod).toMatchObject({ restarts: 0, lastExit: 'code 0' });
  });

  it('scales down the highest-numbered pods and SIGKILLs one that outlives the grace period', async () => {
    const stubborn = `process.on('SIGTERM', () => { if (process.env.POD_ID !== 'local-2') process.exit(0); });
      setInterval(() => {}, 1000); console.log('armed');`;
    const { s, out, err } = supervisor(stubborn, { graceMs: 300 });
    await s.scale(3);
    // Its SIGTERM handlers must be installed before the stop is meaningful.
    await until(() => (out().match(/armed/g)?.length === 3 ? true : undefined));
    const report = await s.scale(1);
    expect(report.started).toEqual([]);
    expect(report.stopped.map((p) => [p.id, p.code, p.signal, p.killed])).toEqual([
      ['local-1', 0, null, false],
      ['local-2', null, 'SIGKILL', true],
    ]);
    expect(report.stopped[1]!.tookMs).toBeGreaterThanOrEqual(300);
    expect(err()).toMatch(
      /local-2 stopped in \d+ ms \(signal SIGKILL\): grace period of 300 ms ran out/,
    );
    expect(s.status().map((p) => p.id)).toEqual(['local-0']);
    await s.down();
    expect(s.size).toBe(0);
  });

  it('rejects a bad count and bad options', async () => {
    expect(
      () =>
        new Supervisor({
          command: [],
          env: {},
          stdout: new PassThrough(),
          stderr: new PassThrough(),
        }),
    ).toThrow(/command/);
    expect(
      () =>
        new Supervisor({
          command: ['x'],
          env: {},
          stdout: new PassThrough(),
          stderr: new PassThrough(),
          graceMs: -1,
        }),
    ).toThrow(/graceMs must be a non-negative integer, got -1 \(number\)/);
    const { s } = supervisor(POD);
    await expect(s.scale(1.5)).rejects.toThrow(/count must be a non-negative integer/);
  });
});

describe('joinProgress (what up and scale wait for)', () => {
  const pod = (id: string, state: PodStatus['state'], lastExit?: string): PodStatus => ({
    id,
    index: Number(id.split('-')[1]),
    state,
    restarts: 0,
    ...(lastExit ? { lastExit } : {}),
  });

  it('waits for pods not listed, starting or restarting; running and exited count as joined', () => {
    const pods = [
      pod('local-0', 'running'),
      pod('local-1', 'starting'),
      pod('local-2', 'restarting'),
      pod('local-3', 'exited'),
    ];
    expect(joinProgress(pods, ['local-0', 'local-1', 'local-2', 'local-3', 'local-4'])).toEqual({
      crashLooped: undefined,
      waiting: ['local-1', 'local-2', 'local-4'],
    });
    // Only the pods asked about: scale waits for the ones it started.
    expect(joinProgress(pods, ['local-0', 'local-3'])).toEqual({
      crashLooped: undefined,
      waiting: [],
    });
  });

  it('names every failed pod asked about, with how it last ended and its error line', () => {
    const pods = [
      { ...pod('local-0', 'failed', 'code 1'), lastError: 'cannot reach Redis at redis://x:1' },
      pod('local-1', 'failed', 'signal SIGKILL'),
    ];
    expect(joinProgress(pods, ['local-0', 'local-1']).crashLooped).toBe(
      'pod(s) local-0 (code 1: cannot reach Redis at redis://x:1), local-1 (signal SIGKILL) failed at start',
    );
    expect(joinProgress(pods, ['local-1']).crashLooped).toBe(
      'pod(s) local-1 (signal SIGKILL) failed at start',
    );
  });
});
