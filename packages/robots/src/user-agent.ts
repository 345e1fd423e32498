/**
 * The product token at the start of `value`: the longest prefix of `[A-Za-z_-]`
 * characters (RFC 9309 §2.2.1; Google's `ExtractUserAgent`). `shardline/0.1 (+https://…)`
 * gives `shardline`; `Foo Bar` gives `Foo`; `ツ` gives the empty string.
 */
export function productToken(value: string): string {
  let end = 0;
  while (end < value.length) {
    const c = value.charCodeAt(end);
    const letter = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
    if (!letter && c !== 0x2d && c !== 0x5f) break;
    end++;
  }
  return value.slice(0, end);
}

/** True when `value` is a valid product token as a whole (Google's `IsValidUserAgentToObey`). */
export function isValidProductToken(value: string): boolean {
  return value.length > 0 && productToken(value) === value;
}

/**
 * Key of the group a `User-agent:` line value names: `*` for the global group (Google also
 * takes `* anything` as global), otherwise the lower-cased product token, or `undefined`
 * when the value starts with no valid token and so can never match a crawler.
 */
export function agentKeyOfLine(value: string): string | undefined {
  if (value.charCodeAt(0) === 0x2a && (value.length === 1 || isAsciiSpace(value.charCodeAt(1)))) {
    return '*';
  }
  const token = productToken(value);
  return token.length > 0 ? token.toLowerCase() : undefined;
}

/** C `isspace` in the "C" locale: space, \t, \n, \v, \f, \r. */
export function isAsciiSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}
