/**
 * The contenders of the comparison, each started as its own process(es) against a running
 * test web: shardline (N pods on one redis-server), Crawlee (`crawlee-crawler.ts`) and Debian's
 * `wget --recursive` (through a small forwarding proxy, since `*.test` does not resolve).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../test/helpers/redis.js';
import { SOURCE_NODE_FLAGS } from '../../test/helpers/source-runtime.js';

export const root = join(import.meta.dirname, '..', '..');

/** What the harness needs to know about a running test web. */
export interface WebInfo {
  port: number;
  seedsFile: string;
  seeds: string[];
  /** Hosts of the site set (concurrency a crawler needs to reach the bound). */
  hosts: number;
  delayMs: number;
  /** Pages in the ground truth: every contender's page budget. */
  budget: number;
}

/** A started contender. */
export interface Running {
  /** Sampled as the contender's own process tree. */
  crawlerPids(): number[];
  /** Sampled apart (shardline's redis-server), or none. */
  storePid?: number;
  /** Resolves once the crawl has finished (every crawler process exited). */
  done(): Promise<void>;
  /** kill -9 of one crawler process (the first pod), returns its pid. */
  kill(): number;
  /** Starts the killed process again, with the same identity and storage. */
  restart(): void;
  /** Ends whatever still runs (timeouts, errors). */
  cleanup(): Promise<void>;
  /** After cleanup: what the contender's own state holds, if it keeps one worth reporting. */
  inspect?(): string;
  /** Scratch directories of the contender (its storage), removed after the run. */
  dirs: string[];
}

export type ContenderName = 'shardline-1' | 'shardline-3' | 'crawlee' | 'wget';

export const exited = (child: ChildProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));

async function waitReady(port: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const ok = await fetch(`http://127.0.0.1:${port}/readyz`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`pod on health port ${port} not ready after ${timeoutMs} ms`);
}

async function startShardline(web: WebInfo, pods: number): Promise<Running> {
  const redisPort = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'sl-compare-redis-'));
  const redis = spawn(
    'redis-server',
    [
      '--port',
      String(redisPort),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
    ],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${redisPort}`;
  for (let i = 0; ; i++) {
    const pong = spawnSync('redis-cli', ['-p', String(redisPort), 'ping'], { encoding: 'utf8' });
    if (pong.stdout.trim() === 'PONG') break;
    if (i > 100) throw new Error('redis-server did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  const healthPorts: number[] = [];
  for (let i = 0; i < pods; i++) healthPorts.push(await freePort());
  const spawnPod = (i: number): ChildProcess =>
    spawn(process.execPath, [...SOURCE_NODE_FLAGS, 'services/crawler/src/main.ts'], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: {
        ...process.env,
        NODE_OPTIONS: '--max-old-space-size=256 --max-semi-space-size=4',
        REDIS_URL: url,
        POD_ID: `pod-${i}`,
        KEY_PREFIX: 'cmp',
        CONCURRENCY: '256',
        MIN_DELAY_MS: String(web.delayMs),
        RESOLVE: `*.test:${web.port}:127.0.0.1`,
        RESULTS_MAX_LEN: '10000',
        EXIT_WHEN_IDLE: '5000',
        HEALTH_PORT: String(healthPorts[i]),
        LOG_LEVEL: 'warn',
      },
    });
  const children = healthPorts.map((_, i) => spawnPod(i));
  await Promise.all(healthPorts.map((port) => waitReady(port, 60_000)));
  // Seed through the CLI, which reads the pods' ring from the registry (as an operator would).
  const seeded = spawnSync(
    process.execPath,
    [
      ...SOURCE_NODE_FLAGS,
      'services/cli/bin/shardline.js',
      'seed',
      '--file',
      web.seedsFile,
      '--redis',
      url,
      '--prefix',
      'cmp',
      '--no-progress',
    ],
    { cwd: root, encoding: 'utf8' },
  );
  if (seeded.status !== 0) throw new Error(`shardline seed failed: ${seeded.stderr}`);
  return {
    crawlerPids: () => children.map((c) => c.pid).filter((p): p is number => p !== undefined),
    storePid: redis.pid,
    dirs: [dir],
    done: async () => {
      // A restarted pod replaces its slot: wait until the current set has exited.
      for (;;) {
        const current = [...children];
        await Promise.all(current.map(exited));
        if (current.every((c, i) => c === children[i])) return;
      }
    },
    kill: () => {
      children[0]?.kill('SIGKILL');
      return children[0]?.pid ?? -1;
    },
    restart: () => {
      children[0] = spawnPod(0);
    },
    cleanup: async () => {
      for (const c of children) c.kill('SIGKILL');
      redis.kill('SIGTERM');
      await exited(redis);
    },
  };
}

function startCrawlee(web: WebInfo): Running {
  const storage = mkdtempSync(join(tmpdir(), 'sl-compare-crawlee-'));
  const spawnCrawler = (purge: boolean): ChildProcess =>
    spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'bench/compare/crawlee-crawler.ts',
        web.seedsFile,
        String(web.delayMs),
        String(web.hosts),
        String(web.budget),
      ],
      {
        cwd: root,
        stdio: ['ignore', 'ignore', 'inherit'],
        env: {
          ...process.env,
          CRAWLEE_STORAGE_DIR: storage,
          CRAWLEE_PURGE_ON_START: purge ? 'true' : 'false',
        },
      },
    );
  let child = spawnCrawler(true);
  return {
    crawlerPids: () => (child.pid === undefined ? [] : [child.pid]),
    dirs: [storage],
    done: async () => {
      for (;;) {
        const current = child;
        await exited(current);
        if (current === child) return;
      }
    },
    kill: () => {
      child.kill('SIGKILL');
      return child.pid ?? -1;
    },
    restart: () => {
      child = spawnCrawler(false);
    },
    cleanup: async () => {
      child.kill('SIGKILL');
      await exited(child);
    },
    inspect: () => crawleeQueue(storage),
  };
}

/**
 * Crawlee's persisted request queue (memory storage: one JSON file per request, `orderNo`
 * null once handled, else its queue position; a lock moves `orderNo` to the lock's expiry,
 * so an `|orderNo|` later than now is a request locked by a process — possibly a dead one).
 */
function crawleeQueue(storage: string): string {
  const dir = join(storage, 'request_queues', 'default');
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json') && n !== '__metadata__.json');
  } catch {
    return 'no persisted request queue';
  }
  const now = Date.now();
  let handled = 0;
  let pending = 0;
  let locked = 0;
  for (const name of names) {
    let orderNo: number | null | undefined;
    try {
      orderNo = (JSON.parse(readFileSync(join(dir, name), 'utf8')) as { orderNo?: number | null })
        .orderNo;
    } catch {
      continue;
    }
    if (orderNo === null || orderNo === undefined) handled++;
    else {
      pending++;
      if (Math.abs(orderNo) > now) locked++;
    }
  }
  return `Crawlee queue at the end: ${names.length} requests, ${handled} handled, ${pending} not handled (${locked} of them locked past the end)`;
}

/** Forwards absolute-form proxy requests (`GET http://site1.test:P/x`) to the test web. */
export async function startProxy(webPort: number): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const target = new URL(req.url ?? '/', 'http://invalid');
    const upstream = request(
      {
        host: '127.0.0.1',
        port: webPort,
        method: req.method,
        path: target.pathname + target.search,
        headers: req.headers,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : 0 };
}

async function startWget(web: WebInfo): Promise<Running> {
  const proxy = await startProxy(web.port);
  const dir = mkdtempSync(join(tmpdir(), 'sl-compare-wget-'));
  const spawnWget = (resume: boolean): ChildProcess =>
    spawn(
      '/usr/bin/wget',
      [
        '--recursive',
        '--level=inf',
        `--wait=${web.delayMs / 1000}`,
        '--no-verbose',
        // Saves pages as *.html so that a restart with --no-clobber parses them from disk
        // (wget only recurses through local files it takes for HTML).
        '--adjust-extension',
        '-e',
        'robots=on',
        '-e',
        'use_proxy=on',
        '-e',
        `http_proxy=http://127.0.0.1:${proxy.port}`,
        // After kill -9: keep what is on disk and recurse from it instead of fetching it again.
        ...(resume ? ['--no-clobber'] : []),
        '--directory-prefix',
        dir,
        ...web.seeds,
      ],
      { stdio: 'ignore' },
    );
  let child = spawnWget(false);
  return {
    crawlerPids: () => (child.pid === undefined ? [] : [child.pid]),
    dirs: [dir],
    done: async () => {
      for (;;) {
        const current = child;
        await exited(current);
        if (current === child) break;
      }
      proxy.server.close();
    },
    kill: () => {
      child.kill('SIGKILL');
      return child.pid ?? -1;
    },
    restart: () => {
      child = spawnWget(true);
    },
    cleanup: async () => {
      child.kill('SIGKILL');
      proxy.server.close();
    },
  };
}

/** Starts a contender; shardline waits for its pods to join and seeds them. */
export function startContender(name: ContenderName, web: WebInfo): Promise<Running> {
  switch (name) {
    case 'shardline-1':
      return startShardline(web, 1);
    case 'shardline-3':
      return startShardline(web, 3);
    case 'crawlee':
      return Promise.resolve(startCrawlee(web));
    case 'wget':
      return startWget(web);
  }
}
