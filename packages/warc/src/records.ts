/**
 * WARC/1.1 records of one HTTP exchange, built and serialised by `warcio` (which computes
 * `Content-Length`, `WARC-Block-Digest` and `WARC-Payload-Digest`, here `sha1:` in base32 as
 * replay tools expect), then gzipped as one member per record with node:zlib.
 */
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { WARCRecord, WARCSerializer } from 'warcio';

const gzipAsync = promisify(gzip);
const WARC_VERSION = 'WARC/1.1';
const DIGEST = { algo: 'sha-1', prefix: 'sha1:', base32: true } as const;

/** Header fields in the order they were sent or received; a repeated field is one pair each. */
export type HeaderPairs = Array<[name: string, value: string]>;

/** The request as it was sent. */
export interface ArchivedRequest {
  /** @default 'GET' */
  method?: string;
  headers: HeaderPairs;
}

/** The response as it was received. */
export interface ArchivedResponse {
  status: number;
  /** Reason phrase of the status line (`OK`); empty when the server sent none. */
  statusText: string;
  headers: HeaderPairs;
  /** The payload bytes kept (at most the crawler's cap). */
  body: Uint8Array;
  /** The body was cut before its end: recorded as `WARC-Truncated: length`. */
  truncated?: boolean;
}

/** One fetch: a request and its response, archived as a linked pair. */
export interface WarcExchange {
  /** The URL requested (`WARC-Target-URI`). */
  url: string;
  /** When the request head was written to the socket (`WARC-Date` of both records). */
  sentAtMs: number;
  /** The address the request went to (`WARC-IP-Address`), when known. */
  ipAddress?: string;
  request: ArchivedRequest;
  response: ArchivedResponse;
}

/** `<urn:uuid:…>`, a WARC-Record-ID. */
export function newRecordId(): string {
  return `<urn:uuid:${randomUUID()}>`;
}

/** The gzipped response and request records of `exchange`, response first. */
export async function exchangeRecords(exchange: WarcExchange): Promise<[Buffer, Buffer]> {
  const date = new Date(exchange.sentAtMs).toISOString();
  const responseId = newRecordId();
  const target = new URL(exchange.url);
  const common: Array<[string, string]> = [];
  if (exchange.ipAddress) common.push(['WARC-IP-Address', exchange.ipAddress]);
  const { response, request } = exchange;
  const responseHeaders: Array<[string, string]> = [['WARC-Record-ID', responseId], ...common];
  if (response.truncated) responseHeaders.push(['WARC-Truncated', 'length']);
  const responseRecord = WARCRecord.create(
    {
      url: exchange.url,
      date,
      type: 'response',
      warcVersion: WARC_VERSION,
      warcHeaders: responseHeaders,
      statusline: `HTTP/1.1 ${response.status} ${response.statusText}`.trimEnd(),
      httpHeaders: response.headers,
    },
    [response.body],
  );
  const requestRecord = WARCRecord.create({
    url: exchange.url,
    date,
    type: 'request',
    warcVersion: WARC_VERSION,
    warcHeaders: [['WARC-Record-ID', newRecordId()], ['WARC-Concurrent-To', responseId], ...common],
    statusline: `${request.method ?? 'GET'} ${target.pathname}${target.search} HTTP/1.1`,
    httpHeaders: [['Host', target.host], ...request.headers],
  });
  return Promise.all([gzipRecord(responseRecord), gzipRecord(requestRecord)]);
}

/** A gzipped `warcinfo` record with `fields` (name: value lines). */
export function warcinfoRecord(filename: string, fields: Record<string, string>): Promise<Buffer> {
  const record = WARCRecord.createWARCInfo(
    { filename, warcVersion: WARC_VERSION, date: new Date().toISOString() },
    fields,
  );
  return gzipRecord(record);
}

async function gzipRecord(record: WARCRecord): Promise<Buffer> {
  const raw = await WARCSerializer.serialize(record, { digest: DIGEST });
  return gzipAsync(raw);
}
