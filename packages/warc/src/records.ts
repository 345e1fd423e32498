/**
 * WARC/1.1 records of one HTTP exchange, built and serialised by `warcio`, then gzipped as one
 * member per record with node:zlib. The digests (`sha1:` in base32, as replay tools expect)
 * are computed here with node:crypto over the same bytes warcio writes and set on the record,
 * so warcio keeps them instead of hashing again through WebAssembly — about 20× cheaper per
 * record (`npm run bench -- warc`).
 */
import { createHash, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip, gzipSync } from 'node:zlib';
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
  presetDigests(responseRecord, response.body);
  const requestRecord = WARCRecord.create({
    url: exchange.url,
    date,
    type: 'request',
    warcVersion: WARC_VERSION,
    warcHeaders: [['WARC-Record-ID', newRecordId()], ['WARC-Concurrent-To', responseId], ...common],
    statusline: `${request.method ?? 'GET'} ${target.pathname}${target.search} HTTP/1.1`,
    httpHeaders: [['Host', target.host], ...request.headers],
  });
  presetDigests(requestRecord, EMPTY);
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

const EMPTY = new Uint8Array(0);
const DIGEST_PREFIX = 'sha1:';
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/**
 * Sets `WARC-Payload-Digest` (the payload) and `WARC-Block-Digest` (HTTP head + payload) of a
 * request/response record, over the bytes warcio's serialiser writes for the block: the HTTP
 * head's `toString()` plus CRLF, UTF-8 encoded, then the payload.
 */
function presetDigests(record: WARCRecord, payload: Uint8Array): void {
  const head = Buffer.from(`${record.httpHeaders?.toString() ?? ''}\r\n`, 'utf8');
  const block = createHash('sha1').update(head).update(payload).digest();
  const headers = record.warcHeaders.headers;
  headers.set(
    'WARC-Payload-Digest',
    DIGEST_PREFIX + base32(createHash('sha1').update(payload).digest()),
  );
  headers.set('WARC-Block-Digest', DIGEST_PREFIX + base32(block));
}

/** RFC 4648 base32 of a 20-byte digest (160 bits: 32 characters, no padding). */
function base32(bytes: Buffer): string {
  let out = '';
  let value = 0;
  let bits = 0;
  for (const byte of bytes) {
    value = ((value << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}

/**
 * Records up to this size are compressed on the event loop: zlib's thread pool costs more per
 * call (a handle, a hop, a callback) than compressing a typical page; bigger ones go there.
 */
const SYNC_GZIP_MAX_BYTES = 256 * 1024;

async function gzipRecord(record: WARCRecord): Promise<Buffer> {
  const raw = await WARCSerializer.serialize(record, { digest: DIGEST });
  return raw.length <= SYNC_GZIP_MAX_BYTES ? gzipSync(raw) : gzipAsync(raw);
}
