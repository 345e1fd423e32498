/**
 * Every route's domain and host inputs keyed as the frontier keys them, so the API agrees
 * with the CLI and with the crawler's own state: `Example.COM.`, `www.example.com` and
 * `Bücher.example` name the domains `example.com` and `xn--bcher-kva.example`, and a host
 * path segment `WWW.Example.com` the host `www.example.com`. Without this a request for a
 * domain typed as a user types it answered 404, and a delay or block set on an upper-case
 * host was kept under a key no crawler reads.
 */
import { hostKey, UrlError } from '@shardline/url';
import type { FastifyInstance } from 'fastify';
import { ApiErrorCode, HttpError } from './errors.js';

/** The `domain` path and query parameters, and the `host` path parameter. */
type Inputs = { domain?: unknown; host?: unknown } | undefined;

function keyed(input: string, field: string, part: 'domain' | 'host'): string {
  try {
    return hostKey(input.trim())[part];
  } catch (error) {
    if (!(error instanceof UrlError)) throw error;
    const shown = JSON.stringify(input.length > 120 ? `${input.slice(0, 120)}…` : input);
    throw new HttpError(
      400,
      ApiErrorCode.VALIDATION,
      `${field}: not a ${part} (${error.reason}): ${shown}`,
      { details: [{ path: field, message: error.reason }] },
    );
  }
}

/** Adds the hook; call before the routes are registered. */
export function keyDomainInputs(app: FastifyInstance): void {
  // preHandler: after the schemas bounded the inputs and the token guard ran.
  app.addHook('preHandler', async (request) => {
    const params = request.params as Inputs;
    const query = request.query as Inputs;
    if (typeof params?.domain === 'string') {
      params.domain = keyed(params.domain, 'params/domain', 'domain');
    }
    if (typeof params?.host === 'string') params.host = keyed(params.host, 'params/host', 'host');
    if (typeof query?.domain === 'string') {
      query.domain = keyed(query.domain, 'querystring/domain', 'domain');
    }
  });
}
