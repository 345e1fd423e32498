/**
 * WARC/1.1 records of one HTTP exchange, serialised here and gzipped as one member per record
 * with node:zlib. The records are a handful of fixed fields, so they are written directly as
 * text rather than through warcio's record builder (which streams every record through async
 * iterators and costs about 0.15 ms of CPU per record); warcio stays the independent reader the
 * tests, `writeCdxj` and `warc get` use. Digests (`sha1:` in base32, as pywb, wget and Heritrix
 * write them) are computed once each with node:crypto over the bytes written.
 */
import { createHash, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { gzip, gzipSync, type ZlibOptions } from 'node:zlib';

const gzipAsync = promisify(gzip);
const WARC_VERSION = 'WARC/1.1';
/** WARC/1.1 §6.7.2: the server answered a conditional request "not modified". */
export const SERVER_NOT_MODIFIED_PROFILE =
  'http://netpreserve.org/warc/1.1/revisit/server-not-modified';

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

/** The earlier capture a `304 Not Modified` revisits, as far as it is known. */
export interface RevisitOf {
  /** `WARC-Refers-To-Target-URI`: the URL of the earlier capture. */
  url: string;
  /** `WARC-Refers-To-Date`: when the earlier capture was made (its `WARC-Date`). */
  dateMs?: number;
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
  /**
   * For a `304 Not Modified`: the earlier capture. A 304 is archived as a `revisit` record
   * (profile server-not-modified, HTTP head only, no payload digest) whether or not this is set.
   */
  revisitOf?: RevisitOf;
}

const CRLF = '\r\n';
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const END = Buffer.from('\r\n\r\n');
const EMPTY = new Uint8Array(0);
const SHA1_EMPTY = sha1Digest(EMPTY);

/** `<urn:uuid:…>`, a WARC-Record-ID. */
export function newRecordId(): string {
  return `<urn:uuid:${randomUUID()}>`;
}

/**
 * The gzipped response (or, for a 304, revisit) and request records of `exchange`, response
 * first, compressed at `gzipLevel`.
 */
export function exchangeRecords(
  exchange: WarcExchange,
  gzipLevel = DEFAULT_GZIP_LEVEL,
): Promise<[Buffer, Buffer]> | [Buffer, Buffer] {
  const date = new Date(exchange.sentAtMs).toISOString();
  const responseId = newRecordId();
  const url = safe(exchange.url);
  const target = new URL(exchange.url);
  const ip = exchange.ipAddress ? `WARC-IP-Address: ${safe(exchange.ipAddress)}${CRLF}` : '';
  const common = `WARC-Date: ${date}${CRLF}WARC-Target-URI: ${url}${CRLF}${ip}`;
  const { response, request } = exchange;

  const statusLine = `HTTP/1.1 ${response.status} ${safe(response.statusText)}`.trimEnd();
  const responseHead = Buffer.from(httpHead(statusLine, response.headers), 'utf8');
  let responseRecord: Buffer;
  if (response.status === 304) {
    // §6.7.2: the block is the server's response head; the payload is the earlier capture's,
    // whose digest is not known here, so WARC-Payload-Digest is left out.
    let fields = `WARC-Type: revisit${CRLF}WARC-Record-ID: ${responseId}${CRLF}${common}`;
    fields += `WARC-Profile: ${SERVER_NOT_MODIFIED_PROFILE}${CRLF}`;
    const of = exchange.revisitOf;
    if (of) {
      fields += `WARC-Refers-To-Target-URI: ${safe(of.url)}${CRLF}`;
      if (of.dateMs !== undefined) {
        fields += `WARC-Refers-To-Date: ${new Date(of.dateMs).toISOString()}${CRLF}`;
      }
    }
    fields += `Content-Type: application/http; msgtype=response${CRLF}`;
    fields += `WARC-Block-Digest: ${sha1Digest(responseHead)}${CRLF}`;
    responseRecord = record(fields, responseHead, EMPTY);
  } else {
    const body = response.body;
    let fields = `WARC-Type: response${CRLF}WARC-Record-ID: ${responseId}${CRLF}${common}`;
    if (response.truncated) fields += `WARC-Truncated: length${CRLF}`;
    fields += `Content-Type: application/http; msgtype=response${CRLF}`;
    fields += `WARC-Payload-Digest: ${sha1Digest(body)}${CRLF}`;
    fields += `WARC-Block-Digest: ${sha1Digest(responseHead, body)}${CRLF}`;
    responseRecord = record(fields, responseHead, body);
  }

  const requestLine = `${safe(request.method ?? 'GET')} ${safe(target.pathname + target.search)} HTTP/1.1`;
  const requestHead = Buffer.from(
    httpHead(requestLine, [['Host', target.host], ...request.headers]),
    'utf8',
  );
  let requestFields = `WARC-Type: request${CRLF}WARC-Record-ID: ${newRecordId()}${CRLF}`;
  requestFields += `WARC-Concurrent-To: ${responseId}${CRLF}${common}`;
  requestFields += `Content-Type: application/http; msgtype=request${CRLF}`;
  requestFields += `WARC-Payload-Digest: ${SHA1_EMPTY}${CRLF}`;
  requestFields += `WARC-Block-Digest: ${sha1Digest(requestHead)}${CRLF}`;
  const requestRecord = record(requestFields, requestHead, EMPTY);
  const requestMember = gzipSync(requestRecord, gzipOptions(requestRecord.length, gzipLevel));
  const options = gzipOptions(responseRecord.length, gzipLevel);
  if (responseRecord.length <= SYNC_GZIP_MAX_BYTES) {
    return [gzipSync(responseRecord, options), requestMember];
  }
  return gzipAsync(responseRecord, options).then((member) => [member, requestMember]);
}

/** A gzipped `warcinfo` record with `fields` (name: value lines). */
export function warcinfoRecord(
  filename: string,
  fields: Record<string, string>,
  gzipLevel = DEFAULT_GZIP_LEVEL,
): Buffer {
  const block = Buffer.from(
    Object.entries(fields)
      .map(([name, value]) => `${safe(name)}: ${safe(value)}${CRLF}`)
      .join(''),
    'utf8',
  );
  let head = `WARC-Type: warcinfo${CRLF}WARC-Record-ID: ${newRecordId()}${CRLF}`;
  head += `WARC-Date: ${new Date().toISOString()}${CRLF}WARC-Filename: ${safe(filename)}${CRLF}`;
  head += `Content-Type: application/warc-fields${CRLF}`;
  head += `WARC-Block-Digest: ${sha1Digest(block)}${CRLF}`;
  const raw = record(head, block, EMPTY);
  return gzipSync(raw, gzipOptions(raw.length, gzipLevel));
}

/** Status line, fields and the blank line that ends an HTTP head. */
function httpHead(firstLine: string, headers: HeaderPairs): string {
  let head = firstLine + CRLF;
  for (const [name, value] of headers) head += `${safe(name)}: ${safe(value)}${CRLF}`;
  return head + CRLF;
}

/**
 * One uncompressed record: version line, `fields` (each ending in CRLF), Content-Length, a
 * blank line, the block (`head` then `payload`) and the closing CRLF CRLF, in one buffer.
 */
function record(fields: string, head: Buffer, payload: Uint8Array): Buffer {
  const length = head.length + payload.length;
  const warcHead = `${WARC_VERSION}${CRLF}${fields}Content-Length: ${length}${CRLF}${CRLF}`;
  const headBytes = Buffer.byteLength(warcHead, 'utf8');
  const out = Buffer.allocUnsafe(headBytes + length + END.length);
  out.write(warcHead, 0, 'utf8');
  head.copy(out, headBytes);
  out.set(payload, headBytes + head.length);
  END.copy(out, headBytes + length);
  return out;
}

/** A field value as one line: a CR or LF (never in what undici or the URL parser hand over) becomes a space. */
function safe(value: string): string {
  return /[\r\n]/.test(value) ? value.replace(/[\r\n]/g, ' ') : value;
}

/** `sha1:` + RFC 4648 base32 of the SHA-1 of the parts, concatenated. */
function sha1Digest(...parts: Uint8Array[]): string {
  const hash = createHash('sha1');
  for (const part of parts) hash.update(part);
  const bytes = hash.digest();
  // 160 bits: 32 characters, no padding; 40 bits (5 bytes → 8 characters) at a time.
  let out = 'sha1:';
  for (let i = 0; i < 20; i += 5) {
    const hi = bytes[i]!;
    const lo = bytes.readUInt32BE(i + 1);
    out +=
      BASE32[hi >>> 3]! +
      BASE32[((hi & 7) << 2) | (lo >>> 30)]! +
      BASE32[(lo >>> 25) & 31]! +
      BASE32[(lo >>> 20) & 31]! +
      BASE32[(lo >>> 15) & 31]! +
      BASE32[(lo >>> 10) & 31]! +
      BASE32[(lo >>> 5) & 31]! +
      BASE32[lo & 31]!;
  }
  return out;
}

/**
 * Records up to this size are compressed on the event loop: zlib's thread pool costs more per
 * call (a handle, a hop, a callback) than compressing a typical page; bigger ones go there.
 */
const SYNC_GZIP_MAX_BYTES = 256 * 1024;

/**
 * zlib level 1: about 40 % less CPU than the default 6 on HTML pages, for 2-4 % more bytes
 * (`npm run bench -- warc/bench/writer`); gzip at level 1 is still what every reader reads.
 */
export const DEFAULT_GZIP_LEVEL = 1;

/**
 * A window just large enough for the record (no match is lost: nothing lies further back) and
 * a hash table to match: zlib then sets up a few KB per call instead of ~256 KB, which is most
 * of the cost of compressing a small record such as a request.
 */
function gzipOptions(length: number, level: number): ZlibOptions {
  const windowBits = Math.min(15, Math.max(9, Math.ceil(Math.log2(length + 262))));
  return { level, windowBits, memLevel: Math.max(1, Math.min(8, windowBits - 6)) };
}
