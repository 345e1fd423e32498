import type { LookupAddress, LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { parseAddress } from './address.js';
import { DnsError, DnsErrorCode } from './errors.js';

/** The shape `resolve()` has; kept apart so this file does not depend on the cache. */
type Resolve = (hostname: string) => Promise<ReadonlyArray<{ address: string; family: 4 | 6 }>>;

/**
 * Adapts `resolve` to `net.connect`'s `lookup(hostname, options, callback)`, honouring
 * `options.family` (0, 4, 6, 'IPv4', 'IPv6') and `options.all`.
 */
export function createLookup(resolve: Resolve): LookupFunction {
  return (hostname, options, callback) => {
    const opts: LookupOptions =
      typeof options === 'number'
        ? { family: options }
        : ((options as LookupOptions | undefined) ?? {});
    const family = normalizeFamily(opts.family);
    const fail = (error: unknown) => {
      // Leave the promise chain so a throwing callback is not swallowed as a rejection.
      process.nextTick(() => callback(error as NodeJS.ErrnoException, opts.all ? [] : ''));
    };
    resolve(hostname).then((addresses) => {
      const wanted = family === 0 ? addresses : addresses.filter((a) => a.family === family);
      const first = wanted[0];
      if (!first) {
        fail(
          new DnsError(DnsErrorCode.NOT_FOUND, `${hostname} has no IPv${family} address`, {
            hostname,
          }),
        );
      } else if (opts.all) {
        const all: LookupAddress[] = wanted.map((a) => ({ address: a.address, family: a.family }));
        process.nextTick(() => callback(null, all));
      } else {
        process.nextTick(() => callback(null, first.address, first.family));
      }
    }, fail);
  };
}

function normalizeFamily(family: LookupOptions['family']): 0 | 4 | 6 {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return 0;
}

/** A connector in undici's shape: `(options, callback)` with `callback(error, null)` on failure. */
export type Connector<O extends { hostname: string }, C extends (...args: never) => void> = (
  options: O,
  callback: C,
) => void;

/**
 * Wraps a connector so IP-literal hosts pass the address policy first: `net.connect` skips
 * `lookup` for them, so without this `http://10.0.0.1/` would never be checked. Hostnames go
 * straight through (the connector's `lookup` checks those).
 */
export function guardConnector<O extends { hostname: string }, C extends (...args: never) => void>(
  resolve: Resolve,
  connector: Connector<O, C>,
): Connector<O, C> {
  return (options, callback) => {
    const host = options.hostname;
    const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
    if (!parseAddress(bare)) {
      connector(options, callback);
      return;
    }
    resolve(host).then(
      () => connector(options, callback),
      (error: unknown) => {
        const fail = callback as unknown as (error: unknown, socket: null) => void;
        process.nextTick(() => fail(error, null));
      },
    );
  };
}
