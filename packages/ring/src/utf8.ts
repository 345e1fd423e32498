/**
 * Encodes `s` as UTF-8 into `out` at `offset` and returns the byte count. The caller
 * guarantees `3 × s.length` bytes of room. Unlike `TextEncoder.encodeInto` this returns a
 * number, not a fresh `{read, written}` object, so the lookup path allocates nothing.
 * Lone surrogates become U+FFFD, exactly as `TextEncoder` does.
 */
export function encodeUtf8(s: string, out: Uint8Array, offset: number): number {
  const n = s.length;
  // Domains are almost always ASCII (IDNs arrive as punycode): a tight loop for them.
  let i = 0;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) break;
    out[offset + i] = c;
  }
  if (i === n) return n;
  let at = offset + i;
  for (; i < n; i++) {
    let c = s.charCodeAt(i);
    if (c < 0x80) {
      out[at++] = c;
    } else if (c < 0x800) {
      out[at++] = 0xc0 | (c >>> 6);
      out[at++] = 0x80 | (c & 0x3f);
    } else if (c < 0xd800 || c > 0xdfff) {
      out[at++] = 0xe0 | (c >>> 12);
      out[at++] = 0x80 | ((c >>> 6) & 0x3f);
      out[at++] = 0x80 | (c & 0x3f);
    } else {
      const next = i + 1 < n ? s.charCodeAt(i + 1) : 0;
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
        i++;
        out[at++] = 0xf0 | (c >>> 18);
        out[at++] = 0x80 | ((c >>> 12) & 0x3f);
        out[at++] = 0x80 | ((c >>> 6) & 0x3f);
        out[at++] = 0x80 | (c & 0x3f);
      } else {
        // Lone surrogate → U+FFFD (EF BF BD).
        out[at++] = 0xef;
        out[at++] = 0xbf;
        out[at++] = 0xbd;
      }
    }
  }
  return at - offset;
}
