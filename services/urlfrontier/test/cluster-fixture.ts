/**
 * A throwaway redis-server per test file and URLFrontier nodes on it (each with its own
 * client), driven by real grpc-js clients that know only the URLFrontier .proto.
 */
import { credentials, type ServiceError } from '@grpc/grpc-js';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import {
  loadUrlFrontierService,
  UrlFrontierNode,
  type UrlFrontierNodeOptions,
} from '../src/index.js';
import type { AckMessage, URLInfo, URLItem } from '../src/proto.js';

const Service = loadUrlFrontierService();

/** A URLFrontier client of one node: promise wrappers of the unary calls and both streams. */
export class FrontierClient {
  // biome-ignore lint/suspicious/noExplicitAny: the generated client's methods are untyped.
  readonly #client: any;

  constructor(address: string) {
    this.#client = new Service(address, credentials.createInsecure());
  }

  call<T = Record<string, unknown>>(method: string, request: object = {}): Promise<T> {
    return new Promise((resolve, reject) =>
      this.#client[method](request, (error: ServiceError | null, reply: T) =>
        error ? reject(error) : resolve(reply),
      ),
    );
  }

  /** GetURLs: every URLInfo the stream sent. */
  getUrls(params: {
    max_urls_per_queue?: number;
    max_queues?: number;
    delay_requestable?: number;
    key?: string;
    crawlID?: string;
    anyCrawlID?: object;
  }): Promise<URLInfo[]> {
    return new Promise((resolve, reject) => {
      const out: URLInfo[] = [];
      const stream = this.#client.GetURLs(params);
      stream.on('data', (info: URLInfo) => out.push(info));
      stream.on('error', reject);
      stream.on('end', () => resolve(out));
    });
  }

  /** A server stream (ListURLs): every message it sent. */
  collect<T>(method: string, params: object): Promise<T[]> {
    return new Promise((resolve, reject) => {
      const out: T[] = [];
      const stream = this.#client[method](params);
      stream.on('data', (message: T) => out.push(message));
      stream.on('error', reject);
      stream.on('end', () => resolve(out));
    });
  }

  /** PutURLs: sends the items, then collects one ack per item. */
  putUrls(items: Partial<URLItem>[]): Promise<AckMessage[]> {
    return new Promise((resolve, reject) => {
      const acks: AckMessage[] = [];
      const stream = this.#client.PutURLs();
      stream.on('data', (ack: AckMessage) => acks.push(ack));
      stream.on('error', reject);
      stream.on('end', () => resolve(acks));
      for (const item of items) stream.write(item);
      stream.end();
    });
  }

  /** The generated grpc-js client, for streams a test drives itself. */
  raw(): unknown {
    return this.#client;
  }

  close(): void {
    this.#client.close();
  }
}

export const discovered = (url: string, extra: { key?: string; crawlID?: string } = {}) => ({
  discovered: { info: { url, key: extra.key ?? '', metadata: {}, crawlID: extra.crawlID ?? '' } },
  ID: url,
});

export const known = (url: string, refetchableFromDate = 0) => ({
  known: {
    info: { url, key: '', metadata: {}, crawlID: '' },
    refetchable_from_date: refetchableFromDate,
  },
  ID: url,
});

export interface ClusterFixture {
  redis(): Redis;
  server(): RedisServer;
  /** Starts a node `id` on a free port under `prefix`. */
  startNode(
    id: string,
    prefix: string,
    options?: Partial<UrlFrontierNodeOptions>,
  ): Promise<UrlFrontierNode>;
  client(node: UrlFrontierNode): FrontierClient;
}

export function clusterFixture(): ClusterFixture {
  let server: RedisServer;
  const clients: Redis[] = [];
  const nodes: UrlFrontierNode[] = [];
  const grpcClients: FrontierClient[] = [];
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    for (const c of grpcClients) c.close();
    await Promise.allSettled(nodes.map((n) => n.stop({ graceful: false })));
    for (const c of clients) c.disconnect();
    await server?.stop();
  });
  const redis = () => {
    const c = new Redis(server.port, server.host, { maxRetriesPerRequest: 3 });
    clients.push(c);
    return c;
  };
  return {
    redis,
    server: () => server,
    async startNode(id, prefix, options = {}) {
      const node = await UrlFrontierNode.start({
        redis: redis(),
        podId: id,
        port: 0,
        prefix,
        sessionTimeoutMs: 1500,
        logger: pino({ level: 'silent' }),
        ...options,
      });
      nodes.push(node);
      return node;
    },
    client(node) {
      const c = new FrontierClient(node.address);
      grpcClients.push(c);
      return c;
    },
  };
}
