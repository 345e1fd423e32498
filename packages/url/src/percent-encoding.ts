/**
 * Percent-encoding normalisation (RFC 3986 §6.2.2.1-2) of a path or query that WHATWG
 * `URL` has already serialised. WHATWG keeps escapes exactly as written, so
 * `/%7euser` and `/~user` stay different; a crawler must see them as one URL.
 */

const UPPER_HEX = '0123456789ABCDEF';

/**
 * Characters a serialised WHATWG path or query may still hold raw although RFC 3986
 * forbids them there (WHATWG leaves `|^[]` in paths and also `` ` ``, `{}` and `\` in
 * queries). Escaping them makes `/a|b` and `/a%7Cb` one URL; servers decode both alike.
 * `%` is in the set so that one regex test decides whether a string needs work at all.
 */
const NEEDS_WORK = /[%|^[\]`{}\\]/;

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48; // 0-9
  const lower = code | 0x20;
  if (lower >= 97 && lower <= 102) return lower - 87; // a-f, A-F
  return -1;
}

/** ALPHA / DIGIT / "-" / "." / "_" / "~": the only escapes RFC 3986 lets us decode. */
function isUnreserved(code: number): boolean {
  const lower = code | 0x20;
  return (
    (lower >= 97 && lower <= 122) ||
    (code >= 48 && code <= 57) ||
    code === 45 ||
    code === 46 ||
    code === 95 ||
    code === 126
  );
}

function isRawIllegal(code: number): boolean {
  return (
    code === 124 || // |
    code === 94 || // ^
    code === 91 || // [
    code === 93 || // ]
    code === 96 || // `
    code === 123 || // {
    code === 125 || // }
    code === 92 // \
  );
}

/**
 * Decodes escapes of unreserved characters (`%7e` → `~`, `%41` → `A`), upper-cases the
 * hex of every other escape (`%2f` → `%2F`), and escapes the ASCII characters RFC 3986
 * forbids that WHATWG leaves raw. Reserved characters are never decoded, `+` is left
 * alone, and a `%` not followed by two hex digits is kept as written (browsers send it
 * so). Returns `input` itself when nothing changes, so the common case allocates nothing.
 */
export function normalizePercentEncoding(input: string): string {
  const first = input.search(NEEDS_WORK);
  if (first === -1) return input;
  let out = '';
  // Start of the run of characters copied through unchanged since the last rewrite.
  let runStart = 0;
  const length = input.length;
  for (let i = first; i < length; i++) {
    const code = input.charCodeAt(i);
    if (code === 37 /* % */) {
      if (i + 2 >= length) continue;
      const high = hexValue(input.charCodeAt(i + 1));
      const low = high < 0 ? -1 : hexValue(input.charCodeAt(i + 2));
      if (low < 0) continue;
      const byte = high * 16 + low;
      const replacement = isUnreserved(byte)
        ? String.fromCharCode(byte)
        : `%${UPPER_HEX[high]}${UPPER_HEX[low]}`;
      out += input.slice(runStart, i) + replacement;
      i += 2;
      runStart = i + 1;
    } else if (isRawIllegal(code)) {
      out += `${input.slice(runStart, i)}%${UPPER_HEX[code >> 4]}${UPPER_HEX[code & 15]}`;
      runStart = i + 1;
    }
  }
  return runStart === 0 ? input : out + input.slice(runStart);
}
