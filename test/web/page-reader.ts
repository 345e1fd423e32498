/**
 * Reads served pages the way a crawler would, independently of the model: decodes by the
 * charset in Content-Type or `<meta charset>`, then extracts `<a href rel>`, `<base href>`
 * and `<meta name=robots>` with htmlparser2. Used by the tests to check the served HTML.
 */
import { Parser } from 'htmlparser2';

/** What a crawler learns from one HTML page. */
export interface PageLinks {
  links: { href: string; rel?: string }[];
  baseHref?: string;
  metaRobots?: string;
  metaCharset?: string;
}

/** Charset named by a Content-Type header, or by `<meta charset>` in the first 1 KiB. */
export function detectCharset(contentType: string | undefined, body: Buffer): string {
  const fromHeader = /charset=([^;\s]+)/i.exec(contentType ?? '')?.[1];
  if (fromHeader) return fromHeader.toLowerCase();
  const head = body.subarray(0, 1024).toString('latin1');
  const fromMeta = /<meta[^>]+charset=["']?([\w-]+)/i.exec(head)?.[1];
  return (fromMeta ?? 'utf-8').toLowerCase();
}

/** Decodes `body` per its charset and extracts links and directives. */
export function readPage(contentType: string | undefined, body: Buffer): PageLinks {
  const html = new TextDecoder(detectCharset(contentType, body)).decode(body);
  const out: PageLinks = { links: [] };
  const parser = new Parser({
    onopentag(name, attrs) {
      if (name === 'a' && attrs.href !== undefined) {
        out.links.push(
          attrs.rel === undefined ? { href: attrs.href } : { href: attrs.href, rel: attrs.rel },
        );
      } else if (name === 'base' && attrs.href !== undefined && out.baseHref === undefined) {
        out.baseHref = attrs.href;
      } else if (name === 'meta' && attrs.name?.toLowerCase() === 'robots' && attrs.content) {
        out.metaRobots = attrs.content.toLowerCase();
      } else if (name === 'meta' && attrs.charset !== undefined) {
        out.metaCharset = attrs.charset.toLowerCase();
      }
    },
  });
  parser.write(html);
  parser.end();
  return out;
}
