/**
 * Throwaway redis-server processes for tests: single servers and three-master clusters
 * on free loopback ports, each in its own temp dir, never touching port 6379.
 *
 * Every integration test that needs Redis goes through this file.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { RUN_DIR_ENV } from './redis-leaks.js';

const execFileAsync = promisify(execFile);

export interface RedisServerOptions {
  /** Turn on AOF (fsync every write) so a restart keeps the data. @default false */
  appendonly?: boolean;
  /** Extra `redis-server` arguments, e.g. `['--cluster-enabled', 'yes']`. */
  args?: string[];
  /** Reuse this directory instead of a fresh temp dir. */
  dir?: string;
  /** Use this port instead of a free one. */
  port?: number;
}

export interface RedisServer {
  readonly host: string;
  readonly port: number;
  readonly url: string;
  readonly dir: string;
  /** The live process id (changes after `restart`). */
  readonly pid: number;
  /** Kill with SIGKILL (a crash); the data dir is kept. */
  kill(): Promise<void>;
  /** Start again on the same port and dir (after `kill` or `shutdown`). */
  restart(): Promise<void>;
  /** Stop the process and delete the temp dir. */
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** A TCP port that was free a moment ago on 127.0.0.1 (and, if asked, port+10000 too). */
export async function freePort(withBusPort = false): Promise<number> {
  return freePortWith(withBusPort ? [10_000] : []);
}

/** A port `base` with `base` … `base + count - 1` all free a moment ago (nodes on BASE+i). */
export async function freePortRun(count: number): Promise<number> {
  return freePortWith(Array.from({ length: count - 1 }, (_, i) => i + 1));
}

/** A free port (never 6379 or 16379) whose ports at `offsets` above it are free too. */
async function freePortWith(offsets: number[]): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await new Promise<number>((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
      });
    });
    if (port === 6379 || port === 16379) continue;
    let free = true;
    for (const offset of offsets) {
      free = port + offset <= 65_535 && (await isFree(port + offset));
      if (!free) break;
    }
    if (free) return port;
  }
  throw new Error('no free port found');
}

async function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Resolves once `PING` answers `+PONG` (a loading AOF answers `-LOADING`). */
async function waitForPong(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = new Socket();
      let data = '';
      const done = (value: boolean) => {
        socket.destroy();
        resolve(value);
      };
      socket.setTimeout(500, () => done(false));
      socket.once('error', () => done(false));
      socket.on('data', (chunk) => {
        data += chunk.toString();
        if (data.includes('\r\n')) done(data.startsWith('+PONG'));
      });
      socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server on port ${port} did not answer PING within ${timeoutMs} ms`);
}

/** Start a redis-server on a free port in its own temp dir. */
export async function startRedis(options: RedisServerOptions = {}): Promise<RedisServer> {
  const clusterMode = options.args?.includes('--cluster-enabled') ?? false;
  const port = options.port ?? (await freePort(clusterMode));
  // Under the run's directory (redis-leaks.ts), so a server no test stopped is found.
  const parent = process.env[RUN_DIR_ENV] ?? tmpdir();
  const dir = options.dir ?? mkdtempSync(join(parent, 'shardline-redis-'));
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    options.appendonly ? 'yes' : 'no',
    '--appendfsync',
    'always',
    '--daemonize',
    'no',
    '--logfile',
    join(dir, 'redis.log'),
    // As docs/operations.md asks of production: a host hash with a folded queue (up to
    // 512 B, frontier host.lua) and an archive hash of up to 512 finished domains stay
    // listpack-encoded, seen buckets of ~800 fingerprints intsets. `args` may set them back
    // (they come last).
    '--hash-max-listpack-value',
    '1024',
    '--hash-max-listpack-entries',
    '512',
    '--set-max-intset-entries',
    '2048',
    ...(options.args ?? []),
  ];
  let child: ChildProcess | undefined;

  const launch = async () => {
    const proc = spawn('redis-server', args, { stdio: 'ignore' });
    live.add(proc);
    proc.once('exit', () => live.delete(proc));
    child = proc;
    await waitForPong(port);
  };
  const terminate = async (signal: NodeJS.Signals) => {
    const proc = child;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      proc.once('exit', () => resolve());
      proc.kill(signal);
    });
  };

  await launch();
  return {
    host: '127.0.0.1',
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    get pid() {
      return child?.pid ?? -1;
    },
    kill: () => terminate('SIGKILL'),
    restart: async () => {
      await terminate('SIGKILL');
      await launch();
    },
    stop: async () => {
      await terminate('SIGKILL');
      if (!options.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface RedisCluster {
  /** Seed nodes, as ioredis' `Cluster` takes them. */
  readonly nodes: { host: string; port: number }[];
  readonly servers: RedisServer[];
  stop(): Promise<void>;
}

/** Start `masters` cluster-enabled servers and join them with `redis-cli --cluster create`. */
export async function startRedisCluster(masters = 3): Promise<RedisCluster> {
  const servers: RedisServer[] = [];
  for (let i = 0; i < masters; i++) {
    servers.push(
      await startRedis({
        args: [
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          'nodes.conf',
          '--cluster-node-timeout',
          '5000',
        ],
      }),
    );
  }
  const endpoints = servers.map((s) => `127.0.0.1:${s.port}`);
  await execFileAsync('redis-cli', [
    '--cluster',
    'create',
    ...endpoints,
    '--cluster-replicas',
    '0',
    '--cluster-yes',
  ]);
  const deadline = Date.now() + 20_000;
  for (const server of servers) {
    for (;;) {
      const { stdout } = await execFileAsync('redis-cli', [
        '-p',
        String(server.port),
        'cluster',
        'info',
      ]);
      if (stdout.includes('cluster_state:ok')) break;
      if (Date.now() > deadline) throw new Error(`cluster node ${server.port} never became ok`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    nodes: servers.map((s) => ({ host: s.host, port: s.port })),
    servers,
    stop: async () => {
      await Promise.all(servers.map((s) => s.stop()));
    },
  };
}
