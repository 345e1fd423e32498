import { describe, expect, it } from 'vitest';
import { ALL_BEHAVIOURS } from './behaviours.js';
import { TestWebOptionsError } from './errors.js';
import { buildModel, type HtmlResource } from './model.js';
import { resolveOptions, type TestWebOptions } from './options.js';

const model = (options: TestWebOptions, port = 8123) => buildModel(resolveOptions(options), port);

function serialise(m: ReturnType<typeof model>): string {
  const out: string[] = [];
  for (const [name, host] of m.hosts) {
    out.push(name, host.behaviours.join(','));
    for (const [path, r] of host.resources) {
      out.push(path, r.kind === 'redirect' ? r.location : r.body.toString('latin1'));
    }
  }
  return out.join('\n');
}

describe('buildModel', () => {
  it('is deterministic for a seed and differs between seeds', () => {
    const a = serialise(model({ hosts: 50, seed: 7 }));
    expect(serialise(model({ hosts: 50, seed: 7 }))).toBe(a);
    expect(serialise(model({ hosts: 50, seed: 8 }))).not.toBe(a);
  });

  it('gives every siteN host / and /p/1 … /p/K within pagesPerHost', () => {
    const m = model({ hosts: 30, pagesPerHost: [3, 9], behaviours: 'none' });
    expect(m.siteHosts).toHaveLength(30);
    for (const name of m.siteHosts) {
      const host = m.hosts.get(name)!;
      expect(host.pageCount).toBeGreaterThanOrEqual(3);
      expect(host.pageCount).toBeLessThanOrEqual(9);
      for (let i = 1; i < host.pageCount; i++) expect(host.resources.has(`/p/${i}`)).toBe(true);
      expect(host.resources.has(`/p/${host.pageCount}`)).toBe(false);
      expect(host.resources.get('/')?.kind).toBe('html');
    }
  });

  it('adds www. and blog. subdomains to a few hosts, linked from their parent root', () => {
    const m = model({ hosts: 60, behaviours: 'none' });
    const subs = [...m.hosts.values()].filter((h) => h.parent !== undefined);
    expect(subs.map((h) => h.name).sort()).toEqual([
      'blog.site3.test',
      'blog.site53.test',
      'www.site3.test',
      'www.site53.test',
    ]);
    const root = m.lookup('site3.test', '/') as HtmlResource;
    expect(root.links.map((l) => l.href)).toContain(`${m.origin('www.site3.test')}/`);
  });

  it('writes links in many spellings: relative, ../, /P/../, fragments, queries, absolute', () => {
    const m = model({ hosts: 40, behaviours: 'none' });
    const hrefs = [...m.hosts.values()].flatMap((h) =>
      [...h.resources.values()].flatMap((r) =>
        r.kind === 'html' ? r.links.map((l) => l.href) : [],
      ),
    );
    expect(hrefs.some((h) => /^\.\.\/p\/\d+$/.test(h))).toBe(true);
    expect(hrefs.some((h) => /^\d+$/.test(h))).toBe(true);
    expect(hrefs.some((h) => /^\/P\/\.\.\/p\/\d+$/.test(h))).toBe(true);
    expect(hrefs.some((h) => /^\/p\/\d+#/.test(h))).toBe(true);
    expect(hrefs.some((h) => /^\/p\/\d+\?v=\d$/.test(h))).toBe(true);
    expect(hrefs.some((h) => h.startsWith('//site'))).toBe(true);
    expect(hrefs.some((h) => h.startsWith('http://site'))).toBe(true);
  });

  it('links to other hosts roughly at crossLinkRatio of the random links, and never when 0', () => {
    const cross = (ratio: number): number => {
      const m = model({ hosts: 100, crossLinkRatio: ratio, behaviours: 'none' });
      let n = 0;
      for (const host of m.hosts.values()) {
        for (const r of host.resources.values()) {
          if (r.kind !== 'html') continue;
          for (const l of r.links) {
            const url = new URL(l.href, `${m.origin(host.name)}/p/1`);
            // Parent ↔ subdomain links are structural, not random cross-links.
            const related =
              host.parent === url.hostname || m.hosts.get(url.hostname)?.parent === host.name;
            if (url.hostname !== host.name && !related) n++;
          }
        }
      }
      return n;
    };
    expect(cross(0)).toBe(0);
    expect(cross(0.5)).toBeGreaterThan(cross(0.1));
    expect(cross(0.1)).toBeGreaterThan(0);
  });

  it("'default-mix' gives every behaviour to some host when hosts ≥ 40, one per host, site1 plain", () => {
    for (const hosts of [40, 200]) {
      const m = model({ hosts });
      const seen = new Set<string>();
      for (const host of m.hosts.values()) {
        expect(host.behaviours.length).toBeLessThanOrEqual(1);
        for (const b of host.behaviours) seen.add(b);
      }
      expect([...seen].sort()).toEqual([...ALL_BEHAVIOURS].sort());
      expect(m.hosts.get('site1.test')?.behaviours).toEqual([]);
    }
  });

  it('an explicit behaviour record applies to the named hosts only', () => {
    const m = model({ hosts: 5, behaviours: { 'site2.test': ['robots-500', 'slow'] } });
    expect(m.hosts.get('site2.test')?.behaviours).toEqual(['robots-500', 'slow']);
    expect(m.hosts.get('site2.test')?.resources.has('/slow/1')).toBe(true);
    expect(m.hosts.get('site3.test')?.behaviours).toEqual([]);
  });
});

describe('resolveOptions', () => {
  it.each([
    [{ hosts: 0 }, 'hosts'],
    [{ hosts: 2.5 }, 'hosts'],
    [{ hosts: 3, pagesPerHost: [5, 2] }, 'pagesPerHost[1]'],
    [{ hosts: 3, crossLinkRatio: 2 }, 'crossLinkRatio'],
    [{ hosts: 3, behaviours: { 'site9.test': ['slow'] } }, 'behaviours["site9.test"]'],
    [{ hosts: 3, behaviours: { 'site1.test': ['nope'] } }, 'behaviours["site1.test"]'],
    [
      { hosts: 3, behaviours: { 'site1.test': ['robots-404', 'robots-500'] } },
      'behaviours["site1.test"]',
    ],
    [{ hosts: 3, port: 70000 }, 'port'],
  ])('rejects %j naming %s', (options, option) => {
    let error: unknown;
    try {
      resolveOptions(options as TestWebOptions);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TestWebOptionsError);
    expect((error as TestWebOptionsError).code).toBe('SHARDLINE_ERR_TESTWEB_OPTIONS');
    expect((error as TestWebOptionsError).option).toBe(option);
  });
});
