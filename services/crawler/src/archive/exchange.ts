/**
 * A fetch outcome as a WARC exchange. The fetcher keeps the body decoded (chunked transfer
 * undone, gzip/br inflated), so the archived response carries that payload; header fields that
 * described the wire form and no longer describe the payload keep their value under the
 * `X-Archive-Orig-` prefix replay tools know (pywb writes the same), every other field exactly
 * as received. A `304 Not Modified` is archived as a revisit of the earlier capture.
 */
import type { RevisitOf, WarcExchange } from '@shardline/warc';
import type { FetchOutcome } from '../fetch-types.js';

/** Fields that stop describing the payload once it is de-chunked or decoded. */
const WIRE_FORM = new Set(['transfer-encoding', 'content-encoding', 'content-length']);

/**
 * The exchange of `outcome`, or `undefined` when there is nothing to archive (no response
 * head arrived, or the fetch failed part way).
 */
export function exchangeOf(
  outcome: FetchOutcome,
  requestHeaders: Array<[string, string]>,
  ipAddress: string | undefined,
  revisitOf?: RevisitOf,
): WarcExchange | undefined {
  const head = outcome.rawHead;
  const sentAtMs = outcome.timings.sentAtMs;
  if (!head || sentAtMs === undefined || outcome.status === 0 || outcome.error) return undefined;
  // Decoded: undici's decompress step removed Content-Encoding from the decoded view.
  const decoded = head.headers.some(
    ([name]) =>
      name.toLowerCase() === 'content-encoding' && !('content-encoding' in outcome.headers),
  );
  const headers = head.headers.map(([name, value]): [string, string] => {
    const lower = name.toLowerCase();
    const rewrite = lower === 'transfer-encoding' || (decoded && WIRE_FORM.has(lower));
    return rewrite ? [`X-Archive-Orig-${name}`, value] : [name, value];
  });
  const exchange: WarcExchange = {
    url: outcome.url,
    sentAtMs,
    request: { headers: requestHeaders },
    response: {
      status: outcome.status,
      statusText: head.statusText,
      headers,
      body: outcome.body ?? new Uint8Array(0),
      truncated: outcome.truncated,
    },
  };
  if (ipAddress !== undefined) exchange.ipAddress = ipAddress;
  if (revisitOf !== undefined && outcome.status === 304) exchange.revisitOf = revisitOf;
  return exchange;
}
