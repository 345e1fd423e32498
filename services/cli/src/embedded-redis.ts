/**
 * An embedded `redis-server` for `shardline crawl` without REDIS_URL: a child process bound to
 * 127.0.0.1 with its data (AOF on) in a local directory, so a crawl stopped and started again
 * resumes where it was. `<dataDir>/redis.port` records its port, its pid and the shardline
 * process that owns it. A second `shardline crawl` on the same directory shares the server
 * while that owner lives, and starts it again from its data when the owner has gone first
 * (embedded-redis-sharer.ts); a server whose owner is gone (a leftover) is shut down and started
 * again from its data, a port file nothing answers on (stale) is replaced — both with a notice,
 * never silently. A watchdog (a tiny `sh` loop, not the server's child) stops the server when
 * its owner dies without stopping it (kill -9), so it is never orphaned.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { pingReply } from '@shardline/frontier';
import { Redis } from 'ioredis';
import { outliveOwner } from './embedded-redis-sharer.js';
import { CliError, CliErrorCode } from './errors.js';
import { createDataDir } from './lib/data-dir.js';
import { isAlive } from './lib/is-alive.js';

/** Options of {@link startEmbeddedRedis}. */
export interface EmbeddedRedisOptions {
  /** Data directory (AOF, port file). @default './.shardline/redis' */
  dataDir?: string;
  /** Fixed port; `0` picks a free one. @default 0 */
  port?: number;
  /** The `redis-server` executable. @default 'redis-server' (from PATH) */
  executable?: string;
  /** How long to wait for the first PONG. @default 15000 */
  startTimeoutMs?: number;
  /** Told when a stale port file or a leftover server is found and handled. */
  onNotice?: (message: string) => void;
}

/** A running (started or reused) embedded Redis. */
export interface EmbeddedRedis {
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  /** True when this call started the server (and `stop` will stop it). */
  readonly started: boolean;
  /** The live shardline process whose server this call shares (when not started). */
  readonly sharedWith?: number;
  /** Stops the server if this call started it (SIGTERM: Redis flushes the AOF). */
  stop(): Promise<void>;
}

/** Why the embedded Redis could not start: a {@link CliError} with code `REDIS`. */
function startError(message: string): CliError {
  return new CliError(CliErrorCode.REDIS, message);
}

const PORT_FILE = 'redis.port';

/** What the port file records. Older files hold the port alone. */
interface PortRecord {
  port: number;
  /** The redis-server's pid. */
  pid?: number;
  /** The shardline process that started it and stops it. */
  owner?: number;
}

/**
 * The embedded Redis that `startEmbeddedRedis` recorded in `dataDir` (its port file), or
 * `undefined` when there is none. Whether it still answers is for the caller to find out
 * (connecting tells why it does not; a missing file cannot).
 */
export function findEmbeddedRedis(dataDir: string): ({ url: string } & PortRecord) | undefined {
  const record = readRecord(join(resolve(dataDir), PORT_FILE));
  return record === undefined ? undefined : { url: `redis://127.0.0.1:${record.port}`, ...record };
}

/** True when `dataDir` holds an embedded Redis's data (its AOF), running or not. */
export function hasEmbeddedData(dataDir: string): boolean {
  const dir = resolve(dataDir);
  return existsSync(join(dir, 'appendonlydir')) || existsSync(join(dir, 'appendonly.aof'));
}

/** Starts (or shares) the embedded Redis of `dataDir`. */
export async function startEmbeddedRedis(
  options: EmbeddedRedisOptions = {},
): Promise<EmbeddedRedis> {
  const dataDir = resolve(options.dataDir ?? './.shardline/redis');
  createDataDir(dataDir);
  const portFile = join(dataDir, PORT_FILE);
  const notice = options.onNotice ?? (() => undefined);
  const known = findEmbeddedRedis(dataDir);
  if (known !== undefined) {
    const answers = await ping(known.port, 500);
    const ours = answers && (await servesDir(known.port, dataDir));
    const ownerAlive = known.owner !== undefined && isAlive(known.owner);
    if (ours && ownerAlive) {
      const shared = handle(dataDir, known.port, undefined, known.owner) as EmbeddedRedis & {
        sharedWith: number;
      };
      return outliveOwner(shared, {
        restart: () => startEmbeddedRedis({ ...options, dataDir, port: known.port }),
        shuttingDown: async () =>
          findEmbeddedRedis(dataDir) === undefined && (await ping(known.port, 300)),
        notice,
      });
    }
    if (ours) {
      notice(
        `stopping a leftover embedded Redis (port ${known.port}${known.pid ? `, pid ${known.pid}` : ''}) whose shardline process is gone; starting it again from its data`,
      );
      await shutdown(known.port);
    } else if (answers) {
      notice(
        `${portFile} names port ${known.port}, but the Redis there does not serve ${dataDir}: not using it`,
      );
    } else {
      notice(`removing the stale ${portFile} (nothing answers on port ${known.port})`);
    }
    rmSync(portFile, { force: true });
  }
  const port = options.port || (await freePort());
  const executable = options.executable ?? 'redis-server';
  const child = spawn(
    executable,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dataDir,
      '--appendonly',
      'yes',
      '--appendfsync',
      'everysec',
      '--save',
      '',
      '--protected-mode',
      'yes',
      // Small host queues are folded into their host hash (up to 512 B); it stays compact
      // (listpack) only while every value fits this; an archive hash of finished domains only
      // while it has at most so many; a seen bucket of ~800 fingerprints stays an intset
      // (docs/operations.md).
      '--hash-max-listpack-value',
      '1024',
      '--hash-max-listpack-entries',
      '512',
      '--set-max-intset-entries',
      '2048',
    ],
    // detached: its own process group. A Ctrl-C at the terminal signals the whole foreground
    // group; the server must outlive the pod's stop (leases in flight settle, the pod leaves
    // membership), and this process shuts it down after. The watchdog and the exit hook
    // below keep it from being orphaned.
    { stdio: ['ignore', 'ignore', 'pipe'], detached: true },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-2000);
  });
  const exited = new Promise<Error>((resolveExit) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      resolveExit(
        error.code === 'ENOENT'
          ? startError(
              `${executable} not found on PATH: install Redis (e.g. apt-get install redis-server) or set REDIS_URL`,
            )
          : startError(`cannot start ${executable}: ${error.message}`),
      );
    });
    child.once('exit', (code) => {
      resolveExit(
        startError(
          `${executable} exited with status ${code} before answering: ${stderr.trim().split('\n').pop() ?? ''}`,
        ),
      );
    });
  });
  const deadline = Date.now() + (options.startTimeoutMs ?? 15_000);
  const ready = (async () => {
    while (Date.now() < deadline) {
      if (await ping(port, 300)) return true;
      await new Promise((r) => setTimeout(r, 50));
    }
    return false;
  })();
  const first = await Promise.race([ready, exited]);
  if (first instanceof Error) throw first;
  if (!first) {
    child.kill('SIGKILL');
    throw startError(`${executable} did not answer PING on port ${port}`);
  }
  const record: PortRecord = { port, pid: child.pid, owner: process.pid };
  writeFileSync(portFile, `${JSON.stringify(record)}\n`);
  const watchdog = startWatchdog(child.pid!);
  // A parent that exits without stop() still takes its child down (the AOF keeps the data).
  const onExit = () => child.kill('SIGTERM');
  process.once('exit', onExit);
  return handle(dataDir, port, child, undefined, () => {
    process.off('exit', onExit);
    watchdog.stop();
    rmSync(portFile, { force: true });
  });
}

/**
 * Stops the server `pid` once this process is gone, however it went (kill -9 included): a
 * detached `sh` loop, so the terminal's SIGHUP to our process group does not take it first.
 */
function startWatchdog(pid: number): { stop(): void } {
  const script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; kill -0 ${pid} 2>/dev/null && kill -TERM ${pid}`;
  const watchdog = spawn('sh', ['-c', script], { stdio: 'ignore', detached: true });
  watchdog.on('error', () => undefined);
  watchdog.unref();
  return {
    stop() {
      try {
        // The loop and its `sleep`: the watchdog leads its own process group.
        if (watchdog.pid !== undefined) process.kill(-watchdog.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    },
  };
}

/** True when the Redis on `port` keeps its data in `dataDir` (`CONFIG GET dir`). */
async function servesDir(port: number, dataDir: string): Promise<boolean> {
  const client = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const reply = (await client.config('GET', 'dir')) as string[];
    return reply[1] !== undefined && resolve(reply[1]) === dataDir;
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** Shuts the Redis on `port` down (it writes its AOF) and waits until it stops answering. */
async function shutdown(port: number): Promise<void> {
  const client = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.call('SHUTDOWN');
  } catch {
    // SHUTDOWN closes the connection instead of answering.
  } finally {
    client.disconnect();
  }
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && (await ping(port, 300))) {
    await new Promise((r) => setTimeout(r, 100));
  }
}

function handle(
  dataDir: string,
  port: number,
  child: ChildProcess | undefined,
  sharedWith?: number,
  cleanup?: () => void,
): EmbeddedRedis {
  let stopping: Promise<void> | undefined;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dataDir,
    started: child !== undefined,
    ...(sharedWith === undefined ? {} : { sharedWith }),
    stop() {
      if (!child) return Promise.resolve();
      stopping ??= new Promise<void>((done) => {
        cleanup?.();
        if (child.exitCode !== null || child.signalCode !== null) return done();
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(timer);
          done();
        });
        child.kill('SIGTERM');
      });
      return stopping;
    },
  };
}

function readRecord(file: string): PortRecord | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
  const validPort = (n: unknown): n is number =>
    typeof n === 'number' && Number.isInteger(n) && n > 0 && n < 65536;
  const pid = (n: unknown) =>
    typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : undefined;
  if (/^\d+$/.test(text)) return validPort(Number(text)) ? { port: Number(text) } : undefined;
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    if (!validPort(parsed.port)) return undefined;
    const record: PortRecord = { port: parsed.port };
    const redisPid = pid(parsed.pid);
    const owner = pid(parsed.owner);
    if (redisPid !== undefined) record.pid = redisPid;
    if (owner !== undefined) record.owner = owner;
    return record;
  } catch {
    return undefined;
  }
}

/** True when something on 127.0.0.1:port answers `PING` with `+PONG`. */
async function ping(port: number, timeoutMs: number): Promise<boolean> {
  return (await pingReply({ host: '127.0.0.1', port }, timeoutMs)) === '+PONG';
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => done(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
