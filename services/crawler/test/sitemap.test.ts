import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { isGzip, parseSitemap, readSitemap } from '../src/sitemap.js';

describe('parseSitemap', () => {
  it('reads <loc> of a urlset and of a sitemap index, with entities and a cap', () => {
    const urlset = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
      <url><loc> https://a.test/p?x=1&amp;y=2 </loc></url><url><loc>https://a.test/q</loc></url>
      <url><loc>https://a.test/r</loc></url></urlset>`;
    expect(parseSitemap(urlset, 2)).toEqual({
      index: false,
      urls: ['https://a.test/p?x=1&y=2', 'https://a.test/q'],
    });
    const index =
      '<sitemapindex><sitemap><loc>https://a.test/s1.xml</loc></sitemap></sitemapindex>';
    expect(parseSitemap(index, 10)).toEqual({ index: true, urls: ['https://a.test/s1.xml'] });
  });
});

describe('readSitemap', () => {
  const urlset = (locs: string[], tail = '') =>
    `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">${locs
      .map(
        (l) =>
          `<url><loc>${l}</loc><image:image><image:loc>${l}.jpg</image:loc></image:image></url>`,
      )
      .join('')}${tail}</urlset>`;
  const bytes = (s: string) => new TextEncoder().encode(s);

  it('reads a plain urlset, skipping extension <loc>s (images are not pages)', async () => {
    const read = await readSitemap(bytes(urlset(['https://a.test/1', 'https://a.test/ü'])));
    expect(read).toMatchObject({ kind: 'urlset', gzip: false, bounds: [] });
    expect(read.urls).toEqual(['https://a.test/1', 'https://a.test/ü']);
    expect(read.error).toBeUndefined();
  });

  it('inflates gzip found by its magic bytes, whatever the name or headers', async () => {
    const body = gzipSync(bytes(urlset(['https://a.test/g1', 'https://a.test/g2'])));
    expect(isGzip(body)).toBe(true);
    const read = await readSitemap(body);
    expect(read).toMatchObject({
      kind: 'urlset',
      gzip: true,
      urls: ['https://a.test/g1', 'https://a.test/g2'],
    });
    // A gzip body cut short (fetch cap) still yields the entries it holds.
    const xml = urlset(Array.from({ length: 2000 }, (_, i) => `https://a.test/p/${i}`));
    const cut = gzipSync(bytes(xml), { level: 0 }).subarray(0, Math.floor(xml.length / 2));
    const partial = await readSitemap(cut);
    expect(partial.urls.length).toBeGreaterThan(100);
    expect(partial.urls.length).toBeLessThan(2000);
    expect(partial.urls[0]).toBe('https://a.test/p/0');
  });

  it('bounds a zip bomb at maxBytes of inflation and keeps what came before', async () => {
    const maxBytes = 4 * 1024 * 1024;
    const bomb = Buffer.concat([
      bytes(`<urlset><url><loc>https://a.test/before</loc></url>`),
      Buffer.alloc(maxBytes * 4, 0x20),
      bytes('<url><loc>https://a.test/after</loc></url></urlset>'),
    ]);
    const body = gzipSync(bomb, { level: 9 });
    expect(body.length).toBeLessThan(maxBytes / 50);
    const read = await readSitemap(body, { maxBytes });
    expect(read.bytes).toBe(maxBytes);
    expect(read.bounds).toEqual(['sitemap-bytes']);
    expect(read.urls).toEqual(['https://a.test/before']);
  });

  it('drops locs past maxUrls and says so', async () => {
    const read = await readSitemap(
      bytes(urlset(['https://a.test/1', 'https://a.test/2', 'https://a.test/3'])),
      {
        maxUrls: 2,
      },
    );
    expect(read.urls).toEqual(['https://a.test/1', 'https://a.test/2']);
    expect(read.bounds).toEqual(['sitemap-urls']);
  });

  it('records a body that is no sitemap, or broken gzip, as an error without throwing', async () => {
    const html = await readSitemap(
      bytes('<html><body><a href="/x">x</a><loc>https://a.test/no</loc></body></html>'),
    );
    expect(html).toMatchObject({ kind: 'unknown', urls: [] });
    expect(html.error).toMatch(/urlset/);
    const garbage = await readSitemap(
      Uint8Array.from([0x1f, 0x8b, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
    );
    expect(garbage.gzip).toBe(true);
    expect(garbage.error).toMatch(/^gzip: /);
    const unclosed = await readSitemap(
      bytes('<urlset><url><loc>https://a.test/1</loc></url><url><loc>https://a.te'),
    );
    expect(unclosed.kind).toBe('urlset');
    expect(unclosed.urls).toEqual(['https://a.test/1']);
  });
});
