import { isAsciiSpace } from './user-agent.js';

/** Kind of one robots.txt line, after Google's tolerance for typos. */
export type DirectiveKind =
  | 'user-agent'
  | 'allow'
  | 'disallow'
  | 'sitemap'
  | 'crawl-delay'
  | 'unknown';

/** One parseable `key: value` line; `value` is the latin1 view of the line's octets. */
export interface Directive {
  kind: DirectiveKind;
  value: string;
}

/**
 * Octets of a line that are read; the rest of the line is ignored (Google's parser: a line
 * buffer of 2083 × 8 bytes, of which the last holds the terminating NUL).
 */
export const MAX_LINE_BYTES = 2083 * 8 - 1;

/** The body as one char per octet, cut to `maxBytes`. */
export interface BodyText {
  text: string;
  truncated: boolean;
}

/**
 * Cuts the body to `maxBytes` octets. When it is cut, the partial last line is dropped too:
 * a half-read `Allow: /images/` reads as `Allow: /`, which would open the whole site.
 * Strings are measured in UTF-8 octets, the form they were fetched in.
 */
export function readBody(body: string | Uint8Array, maxBytes: number): BodyText {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  let end = bytes.length;
  let truncated = false;
  if (bytes.length > maxBytes) {
    truncated = true;
    end = maxBytes;
    const next = bytes[maxBytes];
    if (next !== 0x0a && next !== 0x0d) {
      while (end > 0 && bytes[end - 1] !== 0x0a && bytes[end - 1] !== 0x0d) end--;
    }
  }
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, end);
  return { text: view.toString('latin1'), truncated };
}

const BOM = [0xef, 0xbb, 0xbf];
const LINE_BREAK = /\r\n|\r|\n/;

/**
 * Splits the text into directives the way Google's `RobotsTxtParser` does: a UTF-8 BOM (or
 * a prefix of one) at the start is skipped; CR, LF and CRLF all end a line; a NUL ends the
 * readable part of a line; `#` starts a comment; a line without a colon is accepted when it
 * is exactly two white-space separated words (`Disallow /x`); lines that do not parse are
 * skipped. Never throws.
 */
export function parseDirectives(text: string): Directive[] {
  let start = 0;
  while (start < BOM.length && text.charCodeAt(start) === BOM[start]) start++;
  const out: Directive[] = [];
  for (const rawLine of (start > 0 ? text.slice(start) : text).split(LINE_BREAK)) {
    const directive = parseLine(rawLine);
    if (directive !== undefined) out.push(directive);
  }
  return out;
}

function parseLine(rawLine: string): Directive | undefined {
  let line = rawLine.length > MAX_LINE_BYTES ? rawLine.slice(0, MAX_LINE_BYTES) : rawLine;
  const nul = line.indexOf('\0');
  if (nul >= 0) line = line.slice(0, nul);
  const hash = line.indexOf('#');
  if (hash >= 0) line = line.slice(0, hash);
  line = stripSpace(line);
  if (line.length === 0) return undefined;

  let sep = line.indexOf(':');
  let valueStart = sep + 1;
  if (sep < 0) {
    // Google: "Disallow /x" — a missing colon is accepted when exactly two words remain.
    sep = indexOfBlank(line, 0);
    if (sep < 0) return undefined;
    valueStart = sep;
    while (valueStart < line.length && isBlank(line.charCodeAt(valueStart))) valueStart++;
    if (indexOfBlank(line, valueStart) >= 0) return undefined;
  }
  const key = stripSpace(line.slice(0, sep));
  if (key.length === 0) return undefined;
  return { kind: classifyKey(key), value: stripSpace(line.slice(valueStart)) };
}

const USER_AGENT_KEYS = ['user-agent', 'useragent', 'user agent'];
const DISALLOW_KEYS = ['disallow', 'dissallow', 'dissalow', 'disalow', 'diasllow', 'disallaw'];
const SITEMAP_KEYS = ['sitemap', 'site-map'];
const CRAWL_DELAY_KEYS = ['crawl-delay', 'crawldelay', 'crawl delay'];

/** Google matches keys by case-insensitive prefix, accepting frequent misspellings. */
function classifyKey(key: string): DirectiveKind {
  const k = key.toLowerCase();
  const startsWithAny = (prefixes: string[]) => prefixes.some((p) => k.startsWith(p));
  if (startsWithAny(USER_AGENT_KEYS)) return 'user-agent';
  if (k.startsWith('allow')) return 'allow';
  if (startsWithAny(DISALLOW_KEYS)) return 'disallow';
  if (startsWithAny(SITEMAP_KEYS)) return 'sitemap';
  if (startsWithAny(CRAWL_DELAY_KEYS)) return 'crawl-delay';
  return 'unknown';
}

function isBlank(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

function indexOfBlank(s: string, from: number): number {
  for (let i = from; i < s.length; i++) if (isBlank(s.charCodeAt(i))) return i;
  return -1;
}

function stripSpace(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isAsciiSpace(s.charCodeAt(a))) a++;
  while (b > a && isAsciiSpace(s.charCodeAt(b - 1))) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}
