/**
 * An embedded `redis-server` for `shardline crawl` without REDIS_URL: a child process bound to
 * 127.0.0.1 with its data (AOF on) in a local directory, so a crawl stopped and started again
 * resumes where it was. The port is written to `<dataDir>/redis.port`; a second `shardline
 * crawl` on the same directory finds the running server there and reuses it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { CliError, CliErrorCode } from './errors.js';

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
}

/** A running (started or reused) embedded Redis. */
export interface EmbeddedRedis {
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  /** True when this call started the server (and `stop` will stop it). */
  readonly started: boolean;
  /** Stops the server if this call started it (SIGTERM: Redis flushes the AOF). */
  stop(): Promise<void>;
}

/** Why the embedded Redis could not start: a {@link CliError} with code `REDIS`. */
function startError(message: string): CliError {
  return new CliError(CliErrorCode.REDIS, message);
}

const PORT_FILE = 'redis.port';

/**
 * The embedded Redis that `startEmbeddedRedis` recorded in `dataDir` (its port file), or
 * `undefined` when there is none. Whether it still answers is for the caller to find out
 * (connecting tells why it does not; a missing file cannot).
 */
export function findEmbeddedRedis(dataDir: string): { url: string; port: number } | undefined {
  const port = readPort(join(resolve(dataDir), PORT_FILE));
  return port === undefined ? undefined : { url: `redis://127.0.0.1:${port}`, port };
}

/** Starts (or reuses) the embedded Redis of `dataDir`. */
export async function startEmbeddedRedis(
  options: EmbeddedRedisOptions = {},
): Promise<EmbeddedRedis> {
  const dataDir = resolve(options.dataDir ?? './.shardline/redis');
  mkdirSync(dataDir, { recursive: true });
  const portFile = join(dataDir, PORT_FILE);
  const known = findEmbeddedRedis(dataDir);
  if (known !== undefined && (await ping(known.port, 500))) {
    return handle(dataDir, known.port, undefined);
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
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
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
  writeFileSync(portFile, `${port}\n`);
  // A parent that exits without stop() still takes its child down (the AOF keeps the data).
  const onExit = () => child.kill('SIGTERM');
  process.once('exit', onExit);
  return handle(dataDir, port, child, () => {
    process.off('exit', onExit);
    rmSync(portFile, { force: true });
  });
}

function handle(
  dataDir: string,
  port: number,
  child: ChildProcess | undefined,
  cleanup?: () => void,
): EmbeddedRedis {
  let stopping: Promise<void> | undefined;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dataDir,
    started: child !== undefined,
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

function readPort(file: string): number | undefined {
  try {
    const port = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(port) && port > 0 && port < 65536 ? port : undefined;
  } catch {
    return undefined;
  }
}

/** True when something on 127.0.0.1:port answers `PING` with `+PONG`. */
function ping(port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = new Socket();
    let data = '';
    const finish = (ok: boolean) => {
      socket.destroy();
      done(ok);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('error', () => finish(false));
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      data += chunk.toString();
      if (data.includes('\r\n')) finish(data.startsWith('+PONG'));
    });
  });
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
