/**
 * `<loc>` URLs of an XML sitemap or sitemap index (sitemaps.org), read with htmlparser2 in XML
 * mode (streaming, tolerant of broken markup). Used when robots.txt sitemaps are enqueued.
 */
import { Parser } from 'htmlparser2';

/** URLs of a sitemap; `index` when the root is `<sitemapindex>` (its locs are sitemaps). */
export function parseSitemap(xml: string, maxUrls: number): { index: boolean; urls: string[] } {
  const urls: string[] = [];
  let index = false;
  let inLoc = false;
  let text = '';
  const parser = new Parser(
    {
      onopentag(name) {
        const local = name.toLowerCase().replace(/^.*:/, '');
        if (local === 'sitemapindex') index = true;
        if (local === 'loc') {
          inLoc = true;
          text = '';
        }
      },
      ontext(chunk) {
        if (inLoc) text += chunk;
      },
      onclosetag(name) {
        if (inLoc && name.toLowerCase().replace(/^.*:/, '') === 'loc') {
          inLoc = false;
          const url = text.trim();
          if (url && urls.length < maxUrls) urls.push(url);
        }
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.end(xml);
  return { index, urls };
}
