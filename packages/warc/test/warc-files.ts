/**
 * An independent read-back of `.warc.gz` files for tests: every gzip member inflated on its own
 * by node:zlib, every record parsed by warcio, digests recomputed here (sha1, base32).
 */
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { WARCParser } from 'warcio';
import { completeMemberLength } from '../src/index.js';

/** One record as read back. */
export interface ReadBack {
  offset: number;
  length: number;
  type: string;
  headers: Map<string, string>;
  /** The whole block (HTTP head + payload for request/response). */
  block: Buffer;
  /** The payload after the HTTP head. */
  payload: Buffer;
  httpHead: string;
}

const base32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 base32 of `bytes` (no padding needed for 20-byte digests). */
export function base32Of(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += base32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += base32[(value << (5 - bits)) & 31];
  return out;
}

export function sha1Base32(bytes: Buffer): string {
  return `sha1:${base32Of(createHash('sha1').update(bytes).digest())}`;
}

/** Splits `path` into gzip members (each must be complete) and parses each record by hand. */
export function membersOf(path: string): ReadBack[] {
  const bytes = readFileSync(path);
  const records: ReadBack[] = [];
  let offset = 0;
  while (offset < bytes.length) {
    const length = completeMemberLength(bytes.subarray(offset));
    if (length === undefined) throw new Error(`${path}: no complete gzip member at ${offset}`);
    const raw: Buffer = gunzipSync(bytes.subarray(offset, offset + length));
    const headEnd = raw.indexOf('\r\n\r\n');
    const lines = raw.subarray(0, headEnd).toString('utf8').split('\r\n');
    if (lines[0] !== 'WARC/1.1') throw new Error(`${path}:${offset}: not WARC/1.1`);
    const headers = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      headers.set(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    }
    const blockLength = Number(headers.get('Content-Length'));
    const block = raw.subarray(headEnd + 4, headEnd + 4 + blockLength);
    if (!raw.subarray(headEnd + 4 + blockLength).equals(Buffer.from('\r\n\r\n'))) {
      throw new Error(`${path}:${offset}: record does not end with CRLF CRLF after its block`);
    }
    const type = headers.get('WARC-Type') ?? '';
    let payload = block;
    let httpHead = '';
    if (type === 'request' || type === 'response' || (type === 'revisit' && blockLength > 0)) {
      const httpEnd = block.indexOf('\r\n\r\n');
      httpHead = block.subarray(0, httpEnd).toString('latin1');
      payload = block.subarray(httpEnd + 4);
    }
    records.push({ offset, length, type, headers, block, payload, httpHead });
    offset += length;
  }
  return records;
}

/** One record as warcio parses it. */
export interface WarcioRecord {
  type: string;
  url: string | undefined;
  offset: number;
  /** The payload, raw (not decoded). */
  payload: Buffer;
  id: string;
  /** The HTTP status of a response or revisit with an HTTP head. */
  status: number | undefined;
  /** Every WARC header field, as warcio read it (names lower-cased). */
  warcHeaders: Record<string, string>;
}

/** The records of `path` as warcio parses them. */
export async function warcioRecords(path: string): Promise<WarcioRecord[]> {
  const parser = new WARCParser(createReadStream(path));
  const out = [];
  for await (const record of parser) {
    const payload = Buffer.from(await record.readFully(false));
    out.push({
      type: record.warcType ?? '',
      url: record.warcTargetURI ?? undefined,
      offset: parser.offset,
      payload,
      id: record.warcHeader('WARC-Record-ID') ?? '',
      status: record.httpHeaders ? Number(record.httpHeaders.statusCode) : undefined,
      warcHeaders: Object.fromEntries(record.warcHeaders.headers),
    });
  }
  return out;
}
