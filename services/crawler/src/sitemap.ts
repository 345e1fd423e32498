/**
 * `<loc>` URLs of an XML sitemap or sitemap index (sitemaps.org), read with htmlparser2 in XML
 * mode (streaming, tolerant of broken markup). Used when robots.txt sitemaps are enqueued.
 * Gzip bodies (magic bytes `1f 8b`, whatever the headers say) are inflated as a stream and
 * parsed chunk by chunk, so a zip bomb costs at most `maxBytes` of inflation, never memory.
 */
import { createGunzip, constants as zlib } from 'node:zlib';
import { Parser } from 'htmlparser2';

/** Most URLs one sitemap may list (sitemaps.org protocol). */
export const SITEMAP_MAX_URLS = 50_000;
/** Largest uncompressed sitemap (sitemaps.org protocol): 50 MiB. */
export const SITEMAP_MAX_BYTES = 50 * 1024 * 1024;
// A URL longer than this is no URL a crawler keeps; stop buffering its text.
const MAX_LOC_CHARS = 8192;

/** Options of {@link readSitemap}. */
export interface SitemapReadOptions {
  /** Most `<loc>` URLs kept; later ones are counted, not kept. @default 50000 */
  maxUrls?: number;
  /** Most uncompressed bytes read; the rest is never inflated nor parsed. @default 52428800 */
  maxBytes?: number;
}

/** What {@link readSitemap} found. */
export interface SitemapRead {
  /** `index` for `<sitemapindex>` (its locs are sitemaps), `urlset`, or `unknown` (neither root). */
  kind: 'index' | 'urlset' | 'unknown';
  /** The `<loc>` values, trimmed, in document order, at most `maxUrls`. */
  urls: string[];
  /** The body was gzip (inflated here). */
  gzip: boolean;
  /** Uncompressed bytes read (at most `maxBytes`). */
  bytes: number;
  /** `sitemap-urls` when locs past `maxUrls` were dropped, `sitemap-bytes` when the body went past `maxBytes`. */
  bounds: ('sitemap-urls' | 'sitemap-bytes')[];
  /** Why the body is not a usable sitemap (broken gzip, no sitemap root); urls read before it are kept. */
  error?: string;
}

/** True when `body` starts with the gzip magic bytes. */
export function isGzip(body: Uint8Array): boolean {
  return body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b;
}

/**
 * Reads a sitemap body as fetched: gzip is detected by its magic bytes and inflated with a cap,
 * the XML (UTF-8, as the protocol requires) is parsed as it streams. Never throws on content.
 */
export async function readSitemap(
  body: Uint8Array,
  options: SitemapReadOptions = {},
): Promise<SitemapRead> {
  const maxUrls = options.maxUrls ?? SITEMAP_MAX_URLS;
  const maxBytes = options.maxBytes ?? SITEMAP_MAX_BYTES;
  const reader = new SitemapReader(maxUrls);
  const gzip = isGzip(body);
  let bytes = 0;
  let over = false;
  let error: string | undefined;
  const take = (chunk: Uint8Array): boolean => {
    const room = maxBytes - bytes;
    if (chunk.length > room) {
      over = true;
      chunk = chunk.subarray(0, room);
    }
    bytes += chunk.length;
    reader.write(chunk);
    return !over;
  };
  if (!gzip) take(body);
  else error = await inflate(body, take);
  reader.end();
  const bounds: SitemapRead['bounds'] = [];
  if (reader.dropped > 0) bounds.push('sitemap-urls');
  if (over) bounds.push('sitemap-bytes');
  const kind = reader.kind;
  if (!error && kind === 'unknown') error = 'no <urlset> or <sitemapindex> root';
  return { kind, urls: reader.urls, gzip, bytes, bounds, ...(error ? { error } : {}) };
}

/** Inflates `body` into `take` until it returns false; resolves with an error message or undefined. */
function inflate(
  body: Uint8Array,
  take: (chunk: Uint8Array) => boolean,
): Promise<string | undefined> {
  return new Promise((resolve) => {
    // SYNC_FLUSH: a body cut by the fetch cap still yields what it holds.
    const gunzip = createGunzip({ finishFlush: zlib.Z_SYNC_FLUSH });
    let settled = false;
    const settle = (message?: string) => {
      if (settled) return;
      settled = true;
      resolve(message);
    };
    gunzip.on('data', (chunk: Buffer) => {
      if (settled) return;
      if (!take(chunk)) {
        settle();
        gunzip.destroy();
      }
    });
    gunzip.on('end', () => settle());
    gunzip.on('close', () => settle());
    gunzip.on('error', (e) => settle(`gzip: ${e.message}`));
    gunzip.end(body);
  });
}

/** Collects `<loc>` text of the first-level entries; the root element names the kind. */
class SitemapReader {
  kind: SitemapRead['kind'] = 'unknown';
  readonly urls: string[] = [];
  dropped = 0;
  readonly #maxUrls: number;
  readonly #decoder = new TextDecoder('utf-8');
  readonly #parser: Parser;
  #depth = 0;
  #inLoc = false;
  #text = '';

  constructor(maxUrls: number) {
    this.#maxUrls = maxUrls;
    this.#parser = new Parser(
      {
        onopentag: (name) => {
          const local = localName(name);
          this.#depth += 1;
          if (this.#depth === 1) {
            if (local === 'sitemapindex') this.kind = 'index';
            else if (local === 'urlset') this.kind = 'urlset';
          }
          // Only <urlset><url><loc> / <sitemapindex><sitemap><loc>: image/video/news
          // extensions carry their own <loc> elements, which are not pages to crawl.
          if (local === 'loc' && this.#depth === 3 && this.kind !== 'unknown') {
            this.#inLoc = true;
            this.#text = '';
          }
        },
        ontext: (chunk) => {
          if (this.#inLoc && this.#text.length < MAX_LOC_CHARS) this.#text += chunk;
        },
        onclosetag: (name, implied) => {
          this.#depth = Math.max(0, this.#depth - 1);
          if (this.#inLoc && localName(name) === 'loc') {
            this.#inLoc = false;
            const url = this.#text.trim();
            // implied: closed by the end of a cut body; the URL may be cut too.
            if (implied || !url || this.#text.length >= MAX_LOC_CHARS) return;
            if (this.urls.length < this.#maxUrls) this.urls.push(url);
            else this.dropped += 1;
          }
        },
      },
      { xmlMode: true, decodeEntities: true },
    );
  }

  write(chunk: Uint8Array): void {
    this.#parser.write(this.#decoder.decode(chunk, { stream: true }));
  }

  end(): void {
    this.#parser.end(this.#decoder.decode());
  }
}

function localName(name: string): string {
  return name.toLowerCase().replace(/^.*:/, '');
}

/**
 * URLs of an XML sitemap string; `index` when the root is `<sitemapindex>` (its locs are
 * sitemaps). Synchronous form of {@link readSitemap} for text already decoded.
 */
export function parseSitemap(xml: string, maxUrls: number): { index: boolean; urls: string[] } {
  const reader = new SitemapReader(maxUrls);
  reader.write(new TextEncoder().encode(xml));
  reader.end();
  return { index: reader.kind === 'index', urls: reader.urls };
}
