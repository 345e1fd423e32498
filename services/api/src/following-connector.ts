/**
 * An ioredis connector that asks where Redis is on every (re)connect. The embedded Redis of
 * `shardline crawl`/`up` gets a new port each time it starts (`shardline down` then `up`), and
 * its data dir's port file says which; an API started before that would otherwise keep
 * reconnecting to the old port and answer 503 until restarted.
 */
import { createConnection } from 'node:net';
import { AbstractConnector } from 'ioredis';

/** Where Redis is now (`redis://host:port`), or undefined while none runs. */
export type RedisLocator = () => string | undefined;

type NetStream = ReturnType<typeof createConnection>;

/** What ioredis's `Connector` option takes (its own type is not exported from the package root). */
export type ConnectorClass = new (options: unknown) => AbstractConnector;

/** Builds an ioredis `Connector` class (the `Connector` option) that dials `locate()`'s answer. */
export function followingConnector(locate: RedisLocator, initialUrl: string): ConnectorClass {
  // While none runs, dial the last known address: the refused connection goes through
  // ioredis's reconnect loop (a rejected connect() would end the client for good).
  let last = initialUrl;
  return class FollowingConnector extends AbstractConnector {
    constructor(options: unknown) {
      super((options as { disconnectTimeout?: number }).disconnectTimeout ?? 2000);
    }

    connect(): Promise<NetStream> {
      this.connecting = true;
      const url = locate() ?? last;
      last = url;
      return new Promise((resolve, reject) => {
        // ioredis expects the stream on a later tick, after it has set its handlers up.
        process.nextTick(() => {
          if (!this.connecting) {
            reject(new Error('Connection is closed.'));
            return;
          }
          if (url === undefined) {
            reject(
              Object.assign(new Error('no Redis is running (no port file)'), {
                code: 'ECONNREFUSED',
              }),
            );
            return;
          }
          const { hostname, port } = new URL(url);
          const stream = createConnection({
            host: hostname.replace(/^\[|\]$/g, ''),
            port: Number(port || 6379),
          });
          stream.once('error', (error) => {
            this.firstError = error;
          });
          this.stream = stream;
          resolve(stream);
        });
      });
    }
  };
}
