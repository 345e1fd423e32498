/**
 * A URLFrontier node: a gRPC server speaking the URLFrontier v2 API over the shardline
 * frontier, and a member of the pod ring. It owns the domains the ring gives it and hands
 * out only their queues; it fetches nothing. Nodes join and leave like crawler pods (live
 * handoff of the moved domains' due-index entries); a node that leaves gracefully leaves its
 * leases with the clients that got them (settled by a KnownURLItem to any node, or requeued at
 * their deadline), so a resize hands no URL out twice while it is leased.
 */
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { CrawlRegistry, listenFailure, RedisFrontier } from '@shardline/frontier';
import { Membership, MembershipReader } from '@shardline/membership';
import { type Logger, pino } from 'pino';
import { ADDRESS_SETTING } from './cluster-methods.js';
import { ActiveSwitch, type NodeContext, NodeCounters } from './context.js';
import { CrawlFrontiers } from './crawl-frontiers.js';
import { CrawlHandoff } from './crawl-handoff.js';
import { UrlFrontierError, UrlFrontierErrorCode } from './errors.js';
import { bindQuietly, routeGrpcLogs } from './grpc-log.js';
import { LeaseBook } from './lease-book.js';
import {
  type ResolvedNodeOptions,
  resolveNodeOptions,
  type UrlFrontierNodeOptions,
} from './options.js';
import { loadUrlFrontierService } from './proto.js';
import { urlFrontierImplementation } from './service.js';

/** How long `stop` lets open calls finish before cutting them. */
const SHUTDOWN_GRACE_MS = 5000;

export class UrlFrontierNode {
  /** The node's ring member id. */
  readonly podId: string;
  /** The address clients use (`host:port`), as published in the membership record. */
  readonly address: string;
  /** The default crawl's frontier. */
  readonly frontier: RedisFrontier;
  readonly membership: Membership;
  readonly log: Logger;
  readonly #server: Server;
  readonly #context: NodeContext;
  readonly #handoff: CrawlHandoff;

  private constructor(parts: {
    options: ResolvedNodeOptions;
    address: string;
    server: Server;
    frontier: RedisFrontier;
    membership: Membership;
    context: NodeContext;
    handoff: CrawlHandoff;
  }) {
    this.podId = parts.options.podId;
    this.address = parts.address;
    this.#server = parts.server;
    this.frontier = parts.frontier;
    this.membership = parts.membership;
    this.#context = parts.context;
    this.#handoff = parts.handoff;
    this.log = parts.context.log;
  }

  /**
   * Binds the gRPC server, joins the ring (publishing the address) and serves. Calls that
   * arrive before the ring is read answer UNAVAILABLE.
   */
  static async start(options: UrlFrontierNodeOptions): Promise<UrlFrontierNode> {
    const o = resolveNodeOptions(options);
    const log = o.logger ?? pino({ level: 'info' });
    let membership: Membership | undefined;
    // One frontier per crawl, all on the node's ring (asked lazily, once the membership exists).
    const make = (crawlId: string) =>
      new RedisFrontier({
        redis: o.redis,
        crawlId,
        ownerOf: (domain) => {
          if (!membership) throw new Error('the node has not joined the ring yet');
          return membership.ownerOf(domain);
        },
        prefix: o.prefix,
        leaseTimeoutMs: o.leaseTimeoutMs,
        defaultDelayMs: o.minDelayMs,
        defaultConcurrency: o.perHostConcurrency,
        maxMetaChars: o.maxMetadataChars,
        maxAcceptedPerHost: o.maxPagesPerHost,
        maxAcceptedPerDomain: o.maxPagesPerDomain,
        onBackgroundError: (error, operation) =>
          log.warn({ err: error, operation, crawlId }, 'frontier background operation failed'),
      });
    const crawls = new CrawlFrontiers(
      make,
      new CrawlRegistry({ redis: o.redis, prefix: o.prefix }),
    );
    const frontier = crawls.default;
    const context: NodeContext = {
      podId: o.podId,
      options: o,
      redis: o.redis,
      crawls,
      leases: new LeaseBook(),
      reader: new MembershipReader(o.redis, o.prefix),
      active: new ActiveSwitch(o.redis, o.prefix),
      counters: new NodeCounters(log),
      log,
    };
    const server = new Server({ 'grpc.max_receive_message_length': 4 * 1024 * 1024 });
    server.addService(loadUrlFrontierService().service, urlFrontierImplementation(context));
    routeGrpcLogs(log);
    const port = await bindQuietly(
      () =>
        new Promise<number>((resolve, reject) =>
          server.bindAsync(
            `${o.host}:${o.port}`,
            ServerCredentials.createInsecure(),
            (error, bound) => (error ? reject(listenError(o.host, o.port, error)) : resolve(bound)),
          ),
        ),
    );
    const address = o.advertise ?? `${o.host}:${port}`;
    membership = new Membership({
      redis: o.redis,
      podId: o.podId,
      prefix: o.prefix,
      frontier,
      weight: o.weight,
      sessionTimeoutMs: o.sessionTimeoutMs,
      // A restarted node's leases are still with its clients: they end by ack or deadline.
      reclaimOwnLeasesOnStart: false,
      settings: {
        [ADDRESS_SETTING]: address,
        minDelayMs: o.minDelayMs,
        perHostConcurrency: o.perHostConcurrency,
      },
    });
    membership.on('error', (error: unknown) => log.warn({ err: error }, 'membership error'));
    const handoff = new CrawlHandoff(context);
    membership.on('change', (change) => handoff.onChange(change));
    try {
      await membership.start();
    } catch (error) {
      server.forceShutdown();
      throw error;
    }
    log.info({ pod: o.podId, address }, 'URLFrontier node serving');
    return new UrlFrontierNode({
      options: o,
      address,
      server,
      frontier,
      membership,
      context,
      handoff,
    });
  }

  /** The frontier of a URLFrontier crawl id ('' or DEFAULT: the default crawl). */
  frontierOf(crawlId: string): RedisFrontier {
    return this.#context.crawls.get(crawlId, 'frontierOf');
  }

  /** The node's own counters (GetStats with `local`). */
  counters(): Record<string, number> {
    return this.#context.counters.snapshot();
  }

  /**
   * Stops serving (open calls get a few seconds), then leaves the ring gracefully: its
   * domains move to the other nodes; the leases it handed out stay with their clients.
   * With `graceful: false` it only stops heartbeating, as a crash would (others reclaim).
   */
  async stop(options: { graceful?: boolean } = {}): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.#server.forceShutdown();
        resolve();
      }, SHUTDOWN_GRACE_MS);
      this.#server.tryShutdown(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    const graceful = options.graceful ?? true;
    await this.membership.stop({ graceful, releaseLeases: async () => {} });
    if (graceful) await this.#handoff.leave();
  }
}

/**
 * grpc-js reports a taken port as "No address added out of total 1 resolved errors: [listen
 * EADDRINUSE …]": one line naming the address and the cause instead.
 */
function listenError(host: string, port: number, error: Error): UrlFrontierError {
  return new UrlFrontierError(
    UrlFrontierErrorCode.LISTEN,
    `${listenFailure(host, port, error)}; choose another --port (--urlfrontier-port for up) or --host`,
  );
}
