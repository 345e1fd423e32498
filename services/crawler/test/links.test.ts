import { createCanonicalizer } from '@shardline/url';
import { describe, expect, it } from 'vitest';
import { CrawlerErrorCode } from '../src/errors.js';
import { extractLinks, LinkExtractor, LinkScope, parseXRobotsTag } from '../src/links.js';

const PAGE = 'https://www.example.com/dir/page.html?x=1';

describe('extractLinks', () => {
  it('resolves relative, absolute, root-relative and protocol-relative links', () => {
    const html = `
      <a href="next.html">rel</a>
      <a href="../up/">up</a>
      <a href="/root?q=1#frag">root</a>
      <a href="https://Other.Example.org:443/A">abs</a>
      <a href="//cdn.example.net/x">proto-rel</a>
      <area href="map/area.html">
      <a href="  spaced.html  ">spaced</a>
      <a href="a.html?a=1&amp;b=2">entity</a>`;
    const result = extractLinks(html, PAGE);
    expect(result.links).toEqual([
      'https://www.example.com/dir/next.html',
      'https://www.example.com/up/',
      'https://www.example.com/root?q=1',
      'https://other.example.org/A',
      'https://cdn.example.net/x',
      'https://www.example.com/dir/map/area.html',
      'https://www.example.com/dir/spaced.html',
      'https://www.example.com/dir/a.html?a=1&b=2',
    ]);
    expect(result.baseUrl).toBe(PAGE);
    expect(result.counts).toMatchObject({ found: 8, kept: 8, duplicate: 0 });
  });

  it('uses the first valid http(s) <base href>, even for links before it', () => {
    const html = `
      <a href="early.html">before base</a>
      <head><base href="https://static.example.com/base/"><base href="https://ignored.example/"></head>
      <a href="late.html">after base</a>`;
    const result = extractLinks(html, PAGE);
    expect(result.baseUrl).toBe('https://static.example.com/base/');
    expect(result.links).toEqual([
      'https://static.example.com/base/early.html',
      'https://static.example.com/base/late.html',
    ]);
  });

  it('ignores a <base> that is not http(s)', () => {
    const result = extractLinks('<base href="javascript:alert(1)"><a href="x">x</a>', PAGE);
    expect(result.baseUrl).toBe(PAGE);
    expect(result.links).toEqual(['https://www.example.com/dir/x']);
  });

  it('drops javascript:, mailto:, tel:, data: and credentialed links, counting why', () => {
    const html = `
      <a href="javascript:void(0)">js</a>
      <a href="mailto:someone@example.com">mail</a>
      <a href="tel:+123">tel</a>
      <a href="data:text/html,hi">data</a>
      <a href="http://user:pw@example.com/">creds</a>
      <a href="http://exa mple.com/">bad host</a>
      <a href="/ok">ok</a>`;
    const result = extractLinks(html, PAGE);
    expect(result.links).toEqual(['https://www.example.com/ok']);
    expect(result.counts.invalid.SHARDLINE_ERR_URL_SCHEME).toBe(4);
    expect(result.counts.invalid.SHARDLINE_ERR_URL_CREDENTIALS).toBe(1);
    expect(Object.values(result.counts.invalid).reduce((a, b) => a + b, 0)).toBe(6);
  });

  it('skips rel=nofollow links and self-links, and dedupes by canonical form', () => {
    const html = `
      <a href="/a" rel="external nofollow">nf</a>
      <a href="/b" rel="NoFollow">nf2</a>
      <a href="#top">self</a>
      <a href="">self2</a>
      <a href="/c">c</a>
      <a href="/c#frag">c again</a>
      <a href="https://WWW.example.com:443/c?utm_source=x">c tracked</a>
      <a href="/d" rel="ugc">ugc is followed</a>`;
    const result = extractLinks(html, PAGE);
    expect(result.links).toEqual(['https://www.example.com/c', 'https://www.example.com/d']);
    expect(result.counts).toMatchObject({
      found: 8,
      relNofollow: 2,
      self: 2,
      duplicate: 2,
      kept: 2,
    });
  });

  it('honours <meta name="robots"> nofollow / noindex / none and the bot-specific meta', () => {
    const nofollow = extractLinks(
      '<meta name="robots" content="noindex, nofollow"><a href="/a">a</a>',
      PAGE,
    );
    expect(nofollow).toMatchObject({ nofollow: true, noindex: true, links: [] });
    expect(nofollow.counts.pageNofollow).toBe(1);

    const none = extractLinks('<a href="/a">a</a><META NAME="ROBOTS" CONTENT="NONE">', PAGE);
    expect(none).toMatchObject({ nofollow: true, noindex: true, links: [] });

    const noindexOnly = extractLinks(
      '<meta name="robots" content="noindex"><a href="/a">a</a>',
      PAGE,
    );
    expect(noindexOnly).toMatchObject({ nofollow: false, noindex: true });
    expect(noindexOnly.links).toEqual(['https://www.example.com/a']);

    const forUs = extractLinks(
      '<meta name="shardline" content="nofollow"><a href="/a">a</a>',
      PAGE,
    );
    expect(forUs.nofollow).toBe(true);
    const forOthers = extractLinks(
      '<meta name="googlebot" content="nofollow"><a href="/a">a</a>',
      PAGE,
    );
    expect(forOthers.nofollow).toBe(false);
    expect(forOthers.links).toHaveLength(1);
  });

  it('honours X-Robots-Tag, with and without a user-agent prefix', () => {
    const all = extractLinks('<a href="/a">a</a>', PAGE, { 'x-robots-tag': 'nofollow' });
    expect(all).toMatchObject({ nofollow: true, links: [] });
    const ours = extractLinks('<a href="/a">a</a>', PAGE, {
      'x-robots-tag': 'googlebot: noindex, shardline: nofollow',
    });
    expect(ours).toMatchObject({ nofollow: true, noindex: false });
    const theirs = extractLinks('<a href="/a">a</a>', PAGE, {
      'x-robots-tag': 'otherbot: none, max-snippet: 20',
    });
    expect(theirs).toMatchObject({ nofollow: false, noindex: false });
    expect(theirs.links).toHaveLength(1);
    expect(parseXRobotsTag('max-snippet: 20, noindex', 'shardline')).toEqual({
      nofollow: false,
      noindex: true,
    });
    expect(parseXRobotsTag('ShardLine: NONE', 'shardline')).toEqual({
      nofollow: true,
      noindex: true,
    });
  });

  it('bounds links per page and counts the overflow', () => {
    const html = Array.from({ length: 50 }, (_, i) => `<a href="/p${i}">${i}</a>`).join('');
    const extractor = new LinkExtractor({ maxLinksPerPage: 10 });
    const result = extractor.extract(html, PAGE);
    expect(result.links).toHaveLength(10);
    expect(result.links[9]).toBe('https://www.example.com/p9');
    expect(result.counts.overLimit).toBe(40);
    expect(result.counts.found).toBe(50);
  });

  it('does not trip on malformed HTML and keeps hrefs with entities and unquoted values', () => {
    const html = '<a href=/plain>x<a href="/q?a=1&lt;2"><div <a href=\'/single\'>';
    const result = extractLinks(html, PAGE);
    expect(result.links).toContain('https://www.example.com/plain');
    expect(result.links).toContain('https://www.example.com/q?a=1%3C2');
  });

  it('uses the given canonicalizer (e.g. sorted queries)', () => {
    const canonicalizer = createCanonicalizer({ sortQuery: true });
    const result = extractLinks('<a href="/s?b=2&a=1">s</a>', PAGE, {}, { canonicalizer });
    expect(result.links).toEqual(['https://www.example.com/s?a=1&b=2']);
  });

  it('validates options', () => {
    expect(() => new LinkExtractor({ maxLinksPerPage: 1.5 })).toThrow(
      /maxLinksPerPage.*1\.5 \(number\)/,
    );
  });
});

describe('LinkScope', () => {
  const from = 'https://www.example.com/';

  it('keeps sameDomainOnly links on the linking page’s domain key', () => {
    const scope = new LinkScope({ sameDomainOnly: true });
    expect(scope.decide('https://blog.example.com/x', 0, from)).toBe('ok');
    expect(scope.decide('https://example.org/x', 0, from)).toBe('out-of-scope');
    expect(() => scope.decide('https://example.org/x', 0)).toThrow(
      expect.objectContaining({ code: CrawlerErrorCode.INVALID_ARGUMENT }),
    );
  });

  it('admits allowDomains and their subdomains only', () => {
    const scope = new LinkScope({ allowDomains: ['example.com', 'site.test'] });
    expect(scope.decide('https://a.b.example.com/', 0)).toBe('ok');
    expect(scope.decide('http://site.test:8080/', 0)).toBe('ok');
    expect(scope.decide('https://notexample.com/', 0)).toBe('out-of-scope');
  });

  it('denies RegExp and glob patterns', () => {
    const scope = new LinkScope({
      denyPatterns: [/\/logout\b/, '*.pdf', 'https://www.example.com/private/*'],
    });
    expect(scope.decide('https://www.example.com/logout', 0)).toBe('denied');
    expect(scope.decide('https://www.example.com/doc.pdf', 0)).toBe('denied');
    expect(scope.decide('https://www.example.com/doc.pdf?x=1', 0)).toBe('ok');
    expect(scope.decide('https://www.example.com/private/a', 0)).toBe('denied');
    expect(scope.decide('https://www.example.com/public/a', 0)).toBe('ok');
  });

  it('stops at maxDepth', () => {
    const scope = new LinkScope({ maxDepth: 2 });
    expect(scope.decide('https://x.test/', 1)).toBe('ok');
    expect(scope.decide('https://x.test/', 2)).toBe('too-deep');
  });

  it('checks domain before patterns before depth', () => {
    const scope = new LinkScope({
      allowDomains: ['example.com'],
      denyPatterns: ['*secret*'],
      maxDepth: 0,
    });
    expect(scope.decide('https://other.test/secret', 5)).toBe('out-of-scope');
    expect(scope.decide('https://example.com/secret', 5)).toBe('denied');
    expect(scope.decide('https://example.com/open', 5)).toBe('too-deep');
  });

  it('validates options', () => {
    expect(() => new LinkScope({ maxDepth: -1 })).toThrow(/maxDepth/);
    expect(() => new LinkScope({ denyPatterns: [3 as unknown as string] })).toThrow(/denyPatterns/);
  });
});
