/**
 * The pod's health endpoints (node:http, no framework): what the Dockerfile HEALTHCHECK,
 * compose and the Kubernetes probes and preStop hook call.
 *
 * - `GET /healthz` → 200 while the process and its loop run (never touches Redis).
 * - `GET /readyz` → 200 when the pod is ready (joined, ring built, loop running, not draining)
 *   and Redis answers PING within `pingTimeoutMs`; 503 otherwise.
 * - `POST /drain` (loopback callers only) → runs the graceful stop; answers once it is done.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenFailure } from '@shardline/frontier';
import type { Logger } from 'pino';
import { CrawlerError, CrawlerErrorCode, invalidOption } from './errors.js';

const OWNER = 'HealthServerOptions';

/** Options of {@link HealthServer}. */
export interface HealthServerOptions {
  /** Port to bind (0 = a free one). */
  port: number;
  /** Address to bind. @default '0.0.0.0' */
  host?: string;
  /** Liveness: the process and its loop run. */
  live: () => boolean;
  /** Readiness without Redis (joined, ring, loop, not draining). */
  ready: () => boolean;
  /** One Redis round trip (PING); rejects or hangs when Redis is down. */
  ping: () => Promise<unknown>;
  /** The graceful stop; `/drain` answers when it resolves. */
  drain: () => Promise<void>;
  /** Longest wait for PING before `/readyz` says 503. @default 1000 */
  pingTimeoutMs?: number;
  /** Called with what made a request fail (it is answered 500). @default none */
  onError?: (error: unknown) => void;
}

/** Whether a socket address is a loopback one (IPv4, IPv6, IPv4-mapped IPv6). */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  if (address === '::1') return true;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/**
 * The health endpoints of one pod as `main.ts` and `shardline crawl` serve them: liveness and
 * readiness from the pod, PING on its Redis, `/drain` = the pod's graceful stop. Listening
 * when it resolves (the URL is logged).
 */
export async function servePodHealth(
  o: Pick<HealthServerOptions, 'port' | 'host' | 'pingTimeoutMs'> & {
    pod: { readonly live: boolean; readonly ready: boolean; stop(): Promise<void> };
    redis: { ping(): Promise<unknown> };
    logger: Logger;
  },
): Promise<HealthServer> {
  const health = new HealthServer({
    port: o.port,
    ...(o.host === undefined ? {} : { host: o.host }),
    ...(o.pingTimeoutMs === undefined ? {} : { pingTimeoutMs: o.pingTimeoutMs }),
    live: () => o.pod.live,
    ready: () => o.pod.ready,
    ping: () => o.redis.ping(),
    drain: async () => {
      o.logger.info('drain requested');
      await o.pod.stop();
    },
    onError: (error) => o.logger.warn({ err: error }, 'health request failed'),
  });
  o.logger.info({ url: await health.listen() }, 'health server listening');
  return health;
}

/** A tiny HTTP server for probes. `listen()` → `url` → `close()`. */
export class HealthServer {
  readonly #o: HealthServerOptions;
  readonly #pingTimeoutMs: number;
  readonly #server: Server;
  #draining: Promise<void> | undefined;

  constructor(options: HealthServerOptions) {
    const port = options.port;
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw invalidOption(OWNER, 'port', port, 'an integer port (0-65535)');
    }
    for (const name of ['live', 'ready', 'ping', 'drain'] as const) {
      if (typeof options[name] !== 'function') {
        throw invalidOption(OWNER, name, options[name], 'a function');
      }
    }
    const timeout = options.pingTimeoutMs ?? 1000;
    if (!Number.isInteger(timeout) || timeout < 1) {
      throw invalidOption(OWNER, 'pingTimeoutMs', timeout, 'an integer ≥ 1');
    }
    this.#o = options;
    this.#pingTimeoutMs = timeout;
    this.#server = createServer((req, res) => {
      this.#route(req, res).catch((error: unknown) => {
        this.#o.onError?.(error);
        send(res, 500, 'error');
      });
    });
    // Probes are short; never let a slow client hold the process open.
    this.#server.requestTimeout = 60_000;
  }

  /** Binds; resolves with the `http://host:port` bound. */
  async listen(): Promise<string> {
    const host = this.#o.host ?? '0.0.0.0';
    await new Promise<void>((resolve, reject) => {
      const refused = (error: Error) =>
        reject(
          new CrawlerError(
            CrawlerErrorCode.LISTEN,
            `health server: ${listenFailure(host, this.#o.port, error)}; choose another --health-port (HEALTH_PORT)`,
            { cause: error },
          ),
        );
      this.#server.once('error', refused);
      this.#server.listen(this.#o.port, host, () => {
        this.#server.off('error', refused);
        resolve();
      });
    });
    return this.url;
  }

  /** The bound address as a URL (`host` as bound). */
  get url(): string {
    const address = this.#server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `http://${host}:${address.port}`;
  }

  /** The bound port. */
  get port(): number {
    return (this.#server.address() as AddressInfo).port;
  }

  /** Stops listening; answers in progress (a `/drain`) finish first. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeIdleConnections();
    });
  }

  async #route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') {
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'GET only');
      return this.#o.live() ? send(res, 200, 'ok') : send(res, 503, 'stopped');
    }
    if (path === '/readyz') {
      if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'GET only');
      if (!this.#o.ready()) return send(res, 503, 'not ready');
      return (await this.#redisAnswers())
        ? send(res, 200, 'ready')
        : send(res, 503, 'redis unavailable');
    }
    if (path === '/drain') {
      if (req.method !== 'POST') return send(res, 405, 'POST only');
      // Anyone on the pod network could otherwise stop the pod.
      if (!isLoopback(req.socket.remoteAddress)) return send(res, 403, 'loopback only');
      this.#draining ??= this.#o.drain();
      await this.#draining;
      return send(res, 200, 'drained');
    }
    send(res, 404, 'not found');
  }

  async #redisAnswers(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        this.#o.ping().then(() => true),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), this.#pingTimeoutMs);
        }),
      ]);
    } catch {
      // A refused PING is the answer (not ready); the client logs its own connection errors.
      return false;
    } finally {
      clearTimeout(timer);
    }
  }
}

function send(res: ServerResponse, status: number, body: string): void {
  if (res.headersSent) return;
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': 'no-store',
  });
  res.end(`${body}\n`);
}
