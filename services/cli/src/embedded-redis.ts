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

/** Why the embedded Redis could not start. */
export class EmbeddedRedisError extends Error {
  override readonly name = 'EmbeddedRedisError';
  readonly code = 'SHARDLINE_ERR_CLI_REDIS';
}

const PORT_FILE = 'redis.port';

/** Starts (or reuses) the embedded Redis of `dataDir`. */
export async function startEmbeddedRedis(
  options: EmbeddedRedisOptions = {},
): Promise<EmbeddedRedis> {
  const dataDir = resolve(options.dataDir ?? './.shardline/redis');
  mkdirSync(dataDir, { recursive: true });
  const portFile = join(dataDir, PORT_FILE);
  const known = readPort(portFile);
  if (known !== undefined && (await ping(known, 500))) {
    return handle(dataDir, known, undefined);
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
          ? new EmbeddedRedisError(
              `${executable} not found on PATH: install Redis (e.g. apt-get install redis-server) or set REDIS_URL`,
            )
          : new EmbeddedRedisError(`cannot start ${executable}: ${error.message}`),
      );
    });
    child.once('exit', (code) => {
      resolveExit(
        new EmbeddedRedisError(
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
    throw new EmbeddedRedisError(`${executable} did not answer PING on port ${port}`);
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
