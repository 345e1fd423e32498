/**
 * The URLFrontier service implementation: every method of the .proto, bound to a node's
 * context. Unary methods run their handler and turn a thrown error into a gRPC status
 * (errors.ts); the two streams have their own modules.
 */
import type {
  ServerDuplexStream,
  ServerUnaryCall,
  ServerWritableStream,
  sendUnaryData,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';
import {
  deleteCrawl,
  getActive,
  listCrawls,
  listNodes,
  purgeUrls,
  setActive,
  setLogLevel,
} from './cluster-methods.js';
import type { NodeContext } from './context.js';
import { toServiceError, UrlFrontierError } from './errors.js';
import { getUrlStatus } from './get-url-status.js';
import { handleGetUrls } from './get-urls.js';
import { handleListUrls } from './list-urls.js';
import type { AckMessage, GetParams, ListUrlParams, URLInfo, URLItem } from './proto.js';
import { handlePutUrls } from './put-urls.js';
import {
  blockQueueUntil,
  countUrls,
  deleteQueue,
  getStats,
  listQueues,
  setCrawlLimit,
  setDelay,
} from './queue-methods.js';

// Each handler takes the decoded request of its method (shapes in proto.ts).
// biome-ignore lint/suspicious/noExplicitAny: requests are typed per handler below.
type Unary = (ctx: NodeContext, request: any) => Promise<object>;

const UNARY: Record<string, Unary> = {
  ListNodes: (ctx) => listNodes(ctx),
  ListCrawls: (ctx) => listCrawls(ctx),
  DeleteCrawl: deleteCrawl,
  ListQueues: listQueues,
  GetStats: getStats,
  DeleteQueue: deleteQueue,
  BlockQueueUntil: blockQueueUntil,
  SetActive: setActive,
  GetActive: getActive,
  SetDelay: setDelay,
  SetLogLevel: setLogLevel,
  SetCrawlLimit: setCrawlLimit,
  GetURLStatus: getUrlStatus,
  CountURLs: countUrls,
  PurgeURLs: () => purgeUrls(),
};

/** The service implementation for `server.addService(definition, …)`. */
export function urlFrontierImplementation(ctx: NodeContext): UntypedServiceImplementation {
  const impl: UntypedServiceImplementation = {
    GetURLs: (call: ServerWritableStream<GetParams, URLInfo>) => void handleGetUrls(ctx, call),
    PutURLs: (call: ServerDuplexStream<URLItem, AckMessage>) => handlePutUrls(ctx, call),
    ListURLs: (call: ServerWritableStream<ListUrlParams, URLItem>) =>
      void handleListUrls(ctx, call),
  };
  for (const [name, handler] of Object.entries(UNARY)) {
    impl[name] = (call: ServerUnaryCall<unknown, object>, callback: sendUnaryData<object>) => {
      handler(ctx, call.request).then(
        (reply) => callback(null, reply),
        (error: unknown) => {
          // A refusal the client caused is its answer; anything else is also the node's fault.
          if (!(error instanceof UrlFrontierError)) {
            ctx.counters.fault(`${name}.failed`, `${name} failed`, { err: error });
          }
          callback(toServiceError(error));
        },
      );
    };
  }
  return impl;
}
