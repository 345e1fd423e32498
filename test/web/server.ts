/**
 * The HTTP side: one node:http server answering for every virtual host by its `Host`
 * header. Everything served was rendered by the model at start-up; per request the server
 * only looks up a map, applies the page's timing behaviour and logs the request.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import {
  countFetches,
  type PolitenessOptions,
  type PolitenessViolation,
  politenessViolations,
  type RequestLogEntry,
} from './analysis.js';
import {
  computeGroundTruth,
  type GroundTruth,
  type GroundTruthOptions,
  isRobotsPath,
  robotsRulesFor,
} from './ground-truth.js';
import { buildModel, type HtmlResource, type WebModel } from './model.js';
import { resolveOptions, type TestWebOptions } from './options.js';
import { REAL_ROBOTS_PATH } from './robots-files.js';

/** A running test web. */
export interface TestWeb {
  readonly port: number;
  /** `'http://site1.test:PORT'`. */
  readonly origin: (host: string) => string;
  /** Every virtual host served: `siteN.test` and the subdomains. */
  readonly hosts: string[];
  /** One root URL per `siteN.test` host. */
  readonly seeds: string[];
  /** DNS overrides a crawler needs: `['*.test:127.0.0.1']`. */
  readonly resolveOverrides: string[];
  /** Every request, in order of arrival (entries are completed in place when they finish). */
  readonly log: readonly RequestLogEntry[];
  /** The generated model (hosts, resources, robots) the server serves. */
  readonly model: WebModel;
  /** URLs served only to catch a crawler that follows links it must not (nofollow, text). */
  readonly traps: string[];
  clearLog(): void;
  /** Forgets how often each 429/503-first URL (and robots-503-first robots.txt) was requested, so they fail again. */
  resetState(): void;
  /** Ground truth for a crawler obeying RFC 9309 robots and nofollow; see README. */
  groundTruth(options?: GroundTruthOptions): GroundTruth;
  /** url → number of GETs (robots.txt and /robots-real.txt excluded). */
  fetchCounts(): Map<string, number>;
  /** url → number of GETs of the robots files (`/robots.txt`, `/robots-real.txt`). */
  robotsFetchCounts(): Map<string, number>;
  /** Gaps between request starts and overlapping requests per host. */
  politenessViolations(options: PolitenessOptions): PolitenessViolation[];
  /** The Crawl-delay (ms) the host's robots file sets for `userAgentToken`, else 0. */
  crawlDelayMs(host: string, userAgentToken?: string): number;
  close(): Promise<void>;
}

/** Options of {@link startTestWeb}: the generator's plus a request hook. */
export interface StartTestWebOptions extends TestWebOptions {
  /** Called with each log entry once its response has finished (for streaming logs). */
  onRequestEnd?: (entry: RequestLogEntry) => void;
}

const now = (): number => performance.timeOrigin + performance.now();
const DRIP_CHUNKS = 20;
const FILLER = Buffer.alloc(64 * 1024, '<p>filler text for a very large page</p>\n');
const NOT_FOUND = Buffer.from('<!doctype html><title>404</title><h1>Not found</h1>\n');

/** Starts the server and resolves once it listens. */
export async function startTestWeb(options: StartTestWebOptions): Promise<TestWeb> {
  const resolved = resolveOptions(options);
  const onRequestEnd = options.onRequestEnd;
  let log: RequestLogEntry[] = [];
  // URL (host + path + query) → GETs so far, for the fail-first pages.
  const failCounts = new Map<string, number>();
  // Pending delays, so close() leaves no timer behind.
  const timers = new Set<NodeJS.Timeout>();
  let model: WebModel | undefined;

  const later = (ms: number, res: ServerResponse, fn: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!res.destroyed) fn();
    }, ms);
    // No per-call 'close' listener (a drip would stack twenty); a timer that fires after the
    // client left is a no-op, and close() clears whatever is pending.
    timers.add(timer);
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const hostHeader = (req.headers.host ?? '').toLowerCase();
    const entry: RequestLogEntry = {
      host: hostHeader.replace(/:\d+$/, ''),
      path: req.url ?? '/',
      method: req.method ?? '',
      startMs: now(),
      endMs: -1,
      status: 0,
      bytes: 0,
      userAgent: req.headers['user-agent'] ?? '',
      remotePort: req.socket.remotePort ?? 0,
    };
    log.push(entry);
    const done = (): void => {
      if (entry.endMs >= 0) return;
      entry.endMs = now();
      entry.status = res.headersSent ? res.statusCode : 0;
      onRequestEnd?.(entry);
    };
    res.once('finish', done);
    res.once('close', done);
    const head = req.method === 'HEAD';
    const write = (chunk: Buffer): boolean => {
      entry.bytes += chunk.length;
      return res.write(chunk);
    };
    const send = (status: number, headers: Record<string, string | number>, body: Buffer): void => {
      res.writeHead(status, { 'content-length': body.length, ...headers });
      if (head) {
        res.end();
      } else {
        entry.bytes += body.length;
        res.end(body);
      }
    };

    if (req.method !== 'GET' && !head) {
      send(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }, Buffer.from('GET only\n'));
      return;
    }
    const host = model?.hosts.get(entry.host);
    if (model === undefined || host === undefined) {
      send(404, { 'content-type': 'text/plain' }, Buffer.from(`unknown host ${hostHeader}\n`));
      return;
    }
    const pathname = entry.path.split('?')[0] as string;

    if (isRobotsPath(pathname)) {
      const robots = host.robots;
      if (pathname === REAL_ROBOTS_PATH) {
        if (robots.kind === 'redirect') {
          send(200, { 'content-type': 'text/plain; charset=utf-8' }, robots.target);
        } else {
          send(404, { 'content-type': 'text/html' }, NOT_FOUND);
        }
        return;
      }
      switch (robots.kind) {
        case 'body':
          send(200, { 'content-type': robots.contentType }, robots.body);
          return;
        case 'status':
          send(robots.status, { 'content-type': 'text/plain' }, Buffer.from(`${robots.status}\n`));
          return;
        case 'redirect':
          send(robots.status, { location: robots.location }, Buffer.alloc(0));
          return;
        case 'fail-first': {
          const key = `robots:${entry.host}`;
          const seen = failCounts.get(key) ?? 0;
          failCounts.set(key, seen + 1);
          if (seen === 0) {
            send(
              robots.status,
              { 'content-type': 'text/plain' },
              Buffer.from(`${robots.status}\n`),
            );
          } else {
            send(200, { 'content-type': robots.contentType }, robots.body);
          }
          return;
        }
        case 'timeout':
          // Never answer: hold the socket, then drop it without a response.
          later(resolved.robotsDelayMs, res, () => {
            done(); // before the socket goes, so the log already says "no answer"
            req.socket.destroy();
          });
          return;
      }
    }

    const resource = host.resources.get(pathname);
    if (resource === undefined) {
      send(404, { 'content-type': 'text/html; charset=utf-8' }, NOT_FOUND);
      return;
    }
    if (resource.kind === 'redirect') {
      send(resource.status, { location: resource.location }, Buffer.alloc(0));
      return;
    }
    if (resource.kind === 'file') {
      send(200, { 'content-type': resource.contentType }, resource.body);
      return;
    }
    if (resource.failFirst !== undefined) {
      const key = `${entry.host}${entry.path}`;
      const seen = failCounts.get(key) ?? 0;
      if (seen < resource.failFirst.count) {
        failCounts.set(key, seen + 1);
        send(
          resource.failFirst.status,
          { 'content-type': 'text/plain', 'retry-after': resource.failFirst.retryAfterS },
          Buffer.from(`try again in ${resource.failFirst.retryAfterS} s\n`),
        );
        return;
      }
    }
    servePage(resource);

    function servePage(page: HtmlResource): void {
      const headers: Record<string, string | number> = { 'content-type': page.contentType };
      if (page.xRobotsTag !== undefined) headers['x-robots-tag'] = page.xRobotsTag;
      if (page.delayMs !== undefined) {
        const { delayMs, ...rest } = page;
        later(delayMs, res, () => servePage(rest));
        return;
      }
      if (page.padToBytes !== undefined) {
        res.writeHead(page.status, { ...headers, 'content-length': page.padToBytes });
        if (head) {
          res.end();
          return;
        }
        write(page.body);
        let remaining = page.padToBytes - page.body.length;
        const pump = (): void => {
          while (remaining > 0 && !res.destroyed) {
            const n = Math.min(remaining, FILLER.length);
            remaining -= n;
            if (!write(n === FILLER.length ? FILLER : FILLER.subarray(0, n))) {
              res.once('drain', pump);
              return;
            }
          }
          if (remaining <= 0) res.end();
        };
        pump();
        return;
      }
      if (page.dripMs !== undefined && !head) {
        res.writeHead(page.status, { ...headers, 'content-length': page.body.length });
        const size = Math.ceil(page.body.length / DRIP_CHUNKS);
        const step = page.dripMs / DRIP_CHUNKS;
        // First chunk at once (headers and a little body), the rest one per step.
        const drip = (i: number): void => {
          const chunk = page.body.subarray(i * size, (i + 1) * size);
          if (i === DRIP_CHUNKS - 1 || (i + 1) * size >= page.body.length) {
            entry.bytes += chunk.length;
            res.end(chunk);
            return;
          }
          write(chunk);
          later(step, res, () => drip(i + 1));
        };
        drip(0);
        return;
      }
      send(page.status, headers, page.body);
    }
  };

  const server = createServer({ keepAlive: true, keepAliveTimeout: 30_000 }, handle);
  // Headers must be allowed to take longer than the idle keep-alive window.
  server.headersTimeout = 31_000;
  if (resolved.port !== 0) model = buildModel(resolved, resolved.port);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(resolved.port, resolved.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  model ??= buildModel(resolved, port);
  const built = model;
  const truths = new Map<string, GroundTruth>();
  const crawlDelays = new Map<string, number>();

  return {
    port,
    origin: built.origin,
    hosts: [...built.hosts.keys()],
    seeds: built.siteHosts.map((h) => `${built.origin(h)}/`),
    // The port form: a port-less override reaches only the ports of the seeds of its host.
    resolveOverrides: [`*.test:${port}:${resolved.host}`],
    get log() {
      return log;
    },
    model: built,
    traps: [...built.hosts.values()].flatMap((h) => h.traps.map((p) => built.origin(h.name) + p)),
    clearLog() {
      log = [];
    },
    resetState() {
      failCounts.clear();
    },
    groundTruth(opts = {}) {
      const key = `${opts.maxDepth ?? 'inf'}|${opts.userAgentToken ?? 'shardline'}`;
      let truth = truths.get(key);
      if (truth === undefined) {
        truth = computeGroundTruth(built, opts);
        truths.set(key, truth);
      }
      // Copies, so a caller mutating its sets cannot corrupt the next answer.
      return {
        reachableAllowed: new Set(truth.reachableAllowed),
        disallowedLinked: new Set(truth.disallowedLinked),
        notFollowed: new Set(truth.notFollowed),
        depth: new Map(truth.depth),
      };
    },
    fetchCounts: () => countFetches(log, port),
    robotsFetchCounts() {
      const counts = new Map<string, number>();
      for (const e of log) {
        if (e.method !== 'GET' || !isRobotsPath(e.path.split('?')[0] as string)) continue;
        const url = `${built.origin(e.host)}${e.path}`;
        counts.set(url, (counts.get(url) ?? 0) + 1);
      }
      return counts;
    },
    politenessViolations: (opts) => politenessViolations(log, opts),
    crawlDelayMs(host, userAgentToken = 'shardline') {
      const key = `${host}|${userAgentToken}`;
      let ms = crawlDelays.get(key);
      if (ms === undefined) {
        const h = built.hosts.get(host);
        ms = h === undefined ? 0 : (robotsRulesFor(h, userAgentToken).crawlDelayS ?? 0) * 1000;
        crawlDelays.set(key, ms);
      }
      return ms;
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
