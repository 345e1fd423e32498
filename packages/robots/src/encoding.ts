/**
 * One canonical form for rule patterns and request paths, so that two spellings of the
 * same octets compare equal (RFC 9309 §2.2.2, §2.2.3):
 *
 * - `%xx` of an unreserved character (`A-Z a-z 0-9 - . _ ~`) is decoded: `%62` → `b`;
 * - any other `%xx` keeps its escape with upper-case hex: `%2f` → `%2F`;
 * - octets outside ASCII are escaped, octet by octet (Google's `MaybeEscapePattern`), so a
 *   pattern in raw UTF-8 (`/ツ`) meets the request's `%E3%83%84` — and a Latin-1 robots.txt
 *   byte `é` (0xE9) meets `%E9`;
 * - ASCII that is neither unreserved nor reserved (space, `"`, `<`, `>`, `\`, `^`, `` ` ``,
 *   `{`, `|`, `}`, controls), plus `[`, `]` and `'`, is escaped, because the WHATWG URL
 *   parser escapes some of these and not others depending on the URL component;
 * - a `*` or `$` in a request is escaped (`%2A`, `%24`): in a pattern they are wildcards,
 *   so the RFC's way to name them literally is `%2A` / `%24`. A `$` that does not end a
 *   pattern is literal (as in Google's matcher) and becomes `%24` too.
 *
 * The output is printable ASCII without `#` or white space, and it is a fixed point of
 * robots-parser's own `normaliseEncoding` (encodeURI + upper-casing), so robots-parser can
 * match canonical patterns against canonical paths without changing either.
 */

const HEX = '0123456789ABCDEF';

/** RFC 3986 unreserved: decoded when found percent-encoded. */
const UNRESERVED = new Uint8Array(128);
/** Kept as a literal character; everything else (but `%`, `*`, `$`) is escaped. */
const LITERAL = new Uint8Array(128);
{
  const mark = (table: Uint8Array, chars: string) => {
    for (let i = 0; i < chars.length; i++) table[chars.charCodeAt(i)] = 1;
  };
  const alnum = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  mark(UNRESERVED, `${alnum}-._~`);
  mark(LITERAL, `${alnum}-._~:/?@&=+,;!()`);
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

function escapeOctet(octet: number): string {
  return `%${HEX[octet >> 4]}${HEX[octet & 0xf]}`;
}

function canonicalise(input: string, isPattern: boolean): string {
  let out = '';
  const n = input.length;
  for (let i = 0; i < n; i++) {
    const c = input.charCodeAt(i);
    if (c === 0x25) {
      const hi = i + 2 < n ? hexValue(input.charCodeAt(i + 1)) : -1;
      const lo = hi >= 0 ? hexValue(input.charCodeAt(i + 2)) : -1;
      if (lo >= 0) {
        const octet = hi * 16 + lo;
        out += octet < 0x80 && UNRESERVED[octet] ? String.fromCharCode(octet) : escapeOctet(octet);
        i += 2;
      } else {
        out += '%'; // a stray '%' stays literal, as both Google and the WHATWG parser keep it
      }
    } else if (c === 0x2a) {
      out += isPattern ? '*' : '%2A';
    } else if (c === 0x24) {
      out += isPattern && i === n - 1 ? '$' : '%24';
    } else if (c < 0x80) {
      out += LITERAL[c] ? input[i] : escapeOctet(c);
    } else if (c <= 0xff) {
      out += escapeOctet(c); // patterns arrive as one char per octet (latin1 view of the bytes)
    } else {
      // Not produced by our own callers; escape the UTF-8 octets of the code point.
      const cp = input.codePointAt(i) ?? c;
      for (const octet of Buffer.from(String.fromCodePoint(cp), 'utf8')) out += escapeOctet(octet);
      if (cp > 0xffff) i++;
    }
  }
  return out;
}

/**
 * Canonical form of an Allow/Disallow value. `pattern` is the raw octets of the value, one
 * char per octet (the latin1 view of the robots.txt bytes).
 */
export function canonicalPattern(pattern: string): string {
  return canonicalise(pattern, true);
}

/** Canonical form of a request's path and query (`/a/b?c`), as the WHATWG URL parser gives it. */
export function canonicalPath(pathAndQuery: string): string {
  return canonicalise(pathAndQuery, false);
}
