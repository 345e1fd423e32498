import { describe, expect, it } from 'vitest';
import { parseSitemap } from '../src/sitemap.js';

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
