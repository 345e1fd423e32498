import { describe, expect, it } from 'vitest';
import type { HostBehaviour } from './behaviours.js';
import { computeGroundTruth } from './ground-truth.js';
import { buildModel, type HtmlResource } from './model.js';
import { resolveOptions } from './options.js';

const PORT = 8123;
const o = (host: string) => `http://${host}:${PORT}`;

function web(behaviours: Record<string, HostBehaviour[]>, hosts = 6) {
  return buildModel(resolveOptions({ hosts, behaviours, pagesPerHost: [12, 16] }), PORT);
}

describe('computeGroundTruth', () => {
  it('with no behaviours reaches every generated page of every host and disallows nothing', () => {
    const m = web({}, 10);
    const truth = computeGroundTruth(m);
    for (const host of m.hosts.values()) {
      for (let i = 1; i < host.pageCount; i++) {
        expect(truth.reachableAllowed.has(`${o(host.name)}/p/${i}`)).toBe(true);
      }
    }
    expect(truth.disallowedLinked.size).toBe(0);
    for (const url of truth.reachableAllowed) expect(url).not.toContain('#');
  });

  it('excludes pages disallowed by robots and lists the linked ones as disallowedLinked', () => {
    const m = web({ 'site2.test': ['robots-disallow'], 'site3.test': ['robots-wildcard'] });
    const truth = computeGroundTruth(m);
    const d = (h: string, p: string) => truth.disallowedLinked.has(`${o(h)}${p}`);
    const r = (h: string, p: string) => truth.reachableAllowed.has(`${o(h)}${p}`);
    // site2: the `shardline` group disallows /p/3 and /private/; the * group's /p/2 does not apply.
    expect(d('site2.test', '/p/3')).toBe(true);
    expect(d('site2.test', '/private/area')).toBe(true);
    expect(r('site2.test', '/p/2')).toBe(true);
    // With another token the * group applies instead.
    const other = computeGroundTruth(m, { userAgentToken: 'somebot' });
    expect(other.disallowedLinked.has(`${o('site2.test')}/p/2`)).toBe(true);
    expect(other.reachableAllowed.has(`${o('site2.test')}/p/3`)).toBe(true);
    // site3 wildcards: /p/1 allowed by the longer Allow …$, /p/1x not, /p/4 not, /p/40 would be.
    expect(r('site3.test', '/p/1')).toBe(true);
    expect(d('site3.test', '/p/11')).toBe(true);
    expect(d('site3.test', '/p/4')).toBe(true);
    expect(d('site3.test', '/p/5')).toBe(true);
    for (const url of truth.reachableAllowed) {
      if (url.startsWith(o('site3.test'))) expect(url).not.toContain('?');
    }
  });

  it('treats robots 404 as allow-all and 500 or timeout as disallow-all', () => {
    const m = web({
      'site2.test': ['robots-404'],
      'site3.test': ['robots-500'],
      'site4.test': ['robots-timeout'],
    });
    const truth = computeGroundTruth(m);
    expect(truth.reachableAllowed.has(`${o('site2.test')}/p/1`)).toBe(true);
    for (const h of ['site3.test', 'site4.test']) {
      expect(truth.disallowedLinked.has(`${o(h)}/`)).toBe(true);
      expect([...truth.reachableAllowed].some((u) => u.startsWith(o(h)))).toBe(false);
    }
  });

  it('ignores the rule beyond 500 KiB of a huge robots file, follows robots redirects, ignores garbage', () => {
    const m = web({
      'site2.test': ['robots-huge'],
      'site3.test': ['robots-redirect'],
      'site4.test': ['robots-binary'],
    });
    const truth = computeGroundTruth(m);
    // Huge: `Disallow: /p/2` sits before the cap, `Disallow: /` after it.
    expect(truth.reachableAllowed.has(`${o('site2.test')}/p/1`)).toBe(true);
    expect(truth.disallowedLinked.has(`${o('site2.test')}/p/2`)).toBe(true);
    expect(truth.disallowedLinked.has(`${o('site3.test')}/p/2`)).toBe(true);
    expect(truth.reachableAllowed.has(`${o('site3.test')}/p/1`)).toBe(true);
    const site4 = m.hosts.get('site4.test')!;
    for (let i = 1; i < site4.pageCount; i++) {
      expect(truth.reachableAllowed.has(`${o('site4.test')}/p/${i}`)).toBe(true);
    }
  });

  it('never follows nofollow links, meta robots nofollow or X-Robots-Tag nofollow; follows noindex', () => {
    const m = web({
      'site2.test': ['nofollow-link'],
      'site3.test': ['meta-nofollow'],
      'site4.test': ['header-nofollow', 'meta-noindex'],
    });
    const truth = computeGroundTruth(m);
    const hidden = [
      `${o('site2.test')}/hidden/nofollow`,
      `${o('site2.test')}/hidden/nofollow-2`,
      `${o('site3.test')}/hidden/meta-nofollow`,
      `${o('site3.test')}/hidden/meta-nofollow-2`,
      `${o('site4.test')}/hidden/xrobots`,
    ];
    for (const url of hidden) {
      expect(truth.reachableAllowed.has(url)).toBe(false);
      expect(truth.notFollowed.has(url)).toBe(true);
    }
    // The pages carrying nofollow are themselves fetched; links from them are not.
    expect(truth.reachableAllowed.has(`${o('site3.test')}/meta/nofollow`)).toBe(true);
    expect(truth.reachableAllowed.has(`${o('site4.test')}/xrobots/nofollow`)).toBe(true);
    expect(truth.reachableAllowed.has(`${o('site4.test')}/meta/noindex-child`)).toBe(true);
  });

  it('includes every redirect hop and target, loops once each, base-href and charset targets', () => {
    const m = web({
      'site2.test': ['redirect-chain', 'redirect-loop'],
      'site3.test': ['base-href', 'charset', 'non-html'],
      'site4.test': ['retry-429', 'retry-503', 'error-500'],
    });
    const truth = computeGroundTruth(m);
    const expected = [
      `${o('site2.test')}/chain/1`,
      `${o('site2.test')}/chain/2`,
      `${o('site2.test')}/chain/3`,
      `${o('site2.test')}/chain/end`,
      `${o('site2.test')}/loop/a`,
      `${o('site2.test')}/loop/b`,
      `${o('site3.test')}/deep/dir/leaf`,
      `${o('site3.test')}/deep/sibling`,
      `${o('site3.test')}/charset/caf%C3%A9`,
      `${o('site3.test')}/charset/na%C3%AFve`,
      `${o('site3.test')}/files/notes.txt`,
      `${o('site4.test')}/retry/429-child`,
      `${o('site4.test')}/retry/503-child`,
      `${o('site4.test')}/broken`,
    ];
    for (const url of expected) expect(truth.reachableAllowed.has(url), url).toBe(true);
    // Without <base> the relative link would have pointed here; text files are not parsed.
    expect(truth.reachableAllowed.has(`${o('site3.test')}/based/leaf`)).toBe(false);
    expect(truth.reachableAllowed.has(`${o('site3.test')}/hidden/in-text`)).toBe(false);
    // Each redirect hop is one level deeper than the URL that redirected.
    const depth = (p: string) => truth.depth.get(`${o('site2.test')}${p}`) as number;
    expect(depth('/chain/end')).toBe(depth('/chain/1') + 3);
  });

  it('limits discovery to maxDepth hops from the seeds', () => {
    const m = web({}, 4);
    const shallow = computeGroundTruth(m, { maxDepth: 1 });
    const root = m.lookup('site1.test', '/') as HtmlResource;
    for (const link of root.links) {
      const url = new URL(link.href, `${o('site1.test')}/`);
      url.hash = '';
      expect(shallow.reachableAllowed.has(url.href) || shallow.disallowedLinked.has(url.href)).toBe(
        true,
      );
    }
    for (const [, d] of shallow.depth) expect(d).toBeLessThanOrEqual(1);
    expect(shallow.reachableAllowed.size).toBeLessThan(computeGroundTruth(m).reachableAllowed.size);
  });
});
