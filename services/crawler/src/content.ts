/**
 * What a response body is: media type and charset from Content-Type (and a `<meta charset>`),
 * `Retry-After` in ms, and decoding to text (WHATWG labels, windows-1252 for latin1).
 */

/** `text/html; charset="UTF-8"` → `{ mediaType: 'text/html', charset: 'UTF-8' }`. */
export function parseContentType(value: string | undefined): {
  mediaType?: string;
  charset?: string;
} {
  if (value === undefined) return {};
  const [type = '', ...params] = value.split(';');
  const result: { mediaType?: string; charset?: string } = {};
  const mediaType = type.trim().toLowerCase();
  if (mediaType) result.mediaType = mediaType;
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const charset = param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
    if (charset) result.charset = charset;
    break;
  }
  return result;
}

/** Bodies we parse for links; a missing Content-Type is sniffed as HTML by the caller. */
export function isHtmlMediaType(mediaType: string | undefined): boolean {
  return (
    mediaType === undefined || mediaType === 'text/html' || mediaType === 'application/xhtml+xml'
  );
}

/**
 * `Retry-After` as milliseconds from `nowMs`: delta-seconds or an HTTP-date (past dates → 0),
 * capped at `maxMs`; `undefined` when unparseable.
 */
export function parseRetryAfter(value: string, nowMs: number, maxMs: number): number | undefined {
  const trimmed = value.trim();
  let ms: number;
  if (/^\d+$/.test(trimmed)) {
    ms = Number(trimmed) * 1000;
  } else {
    const at = Date.parse(trimmed);
    if (Number.isNaN(at)) return undefined;
    ms = Math.max(0, at - nowMs);
  }
  return Math.min(ms, maxMs);
}

/** A WHATWG encoding name for `label`, or `undefined` if TextDecoder does not know it. */
export function normalizeCharset(label: string | undefined): string | undefined {
  if (label === undefined) return undefined;
  try {
    return new TextDecoder(label.trim()).encoding;
  } catch (error) {
    // TextDecoder refuses a label it does not know with a RangeError.
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

const META_CHARSET = /<meta\b[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)/i;

/**
 * The body's encoding, in the WHATWG order of precedence: byte-order mark, then the
 * Content-Type charset, then a `<meta charset>` / `http-equiv` declaration within the first
 * 1024 bytes, else `utf-8`.
 */
export function resolveCharset(body: Uint8Array, headerCharset?: string): string {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  const fromHeader = normalizeCharset(headerCharset);
  if (fromHeader) return fromHeader;
  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.length, 1024)).toString(
    'latin1',
  );
  const declared = normalizeCharset(META_CHARSET.exec(head)?.[1]);
  // A meta tag claiming UTF-16 was read as ASCII, so it cannot be right (WHATWG prescan rule).
  if (declared === 'utf-16le' || declared === 'utf-16be') return 'utf-8';
  if (declared === 'x-user-defined') return 'windows-1252';
  return declared ?? 'utf-8';
}

/** Decode a fetched body to text (`charset` from the outcome; invalid sequences become U+FFFD). */
export function decodeBody(body: Uint8Array, charset = 'utf-8'): string {
  const encoding = normalizeCharset(charset) ?? 'utf-8';
  if (encoding === 'windows-1252') return decodeWindows1252(body);
  return new TextDecoder(encoding).decode(body);
}

// WHATWG windows-1252 for bytes 0x80..0x9F (the rest is Latin-1).
const WINDOWS_1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/**
 * Node 20.18.3+ decodes `windows-1252` (and every Latin-1 label mapped to it) as ISO-8859-1,
 * turning 0x80..0x9F into C1 controls (nodejs/node#60888), so smart quotes and € vanish.
 * Latin-1 plus the fixed 32-entry table is the whole encoding.
 */
function decodeWindows1252(body: Uint8Array): string {
  const latin1 = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('latin1');
  return latin1.replace(/[\u0080-\u009f]/g, (c) => WINDOWS_1252_HIGH[c.charCodeAt(0) - 0x80] ?? c);
}
