/**
 * The generator: from the options and the port, a deterministic model of every host, page,
 * link, redirect and robots file. The server serves it and the ground truth walks it; the
 * server never decides anything the model does not say. Its shapes are in model-types.ts.
 */
import {
  defaultMix,
  type HostBehaviour,
  isRobotsBehaviour,
  type PageBehaviour,
  type RobotsBehaviour,
} from './behaviours.js';
import type { HostModel, HtmlResource, Resource, WebModel } from './model-types.js';
import type { ResolvedTestWebOptions } from './options.js';
import { deriveSeed, Random } from './random.js';
import { type LinkSpec, PDF_DOC, PNG_PIXEL, renderPage } from './render.js';
import { robotsResponse } from './robots-files.js';

export type { HostModel, HtmlResource, Resource, WebModel } from './model-types.js';

/** Hosts with index ≡ 3 (mod 50) get `www.` and `blog.` subdomains. */
const SUBDOMAINS = ['www', 'blog'] as const;
const SUBDOMAIN_PAGES = 4;

function hasSubdomains(index: number): boolean {
  return index % 50 === 3;
}

function pagePath(index: number): string {
  return index === 0 ? '/' : `/p/${index}`;
}

/**
 * Spells a link from `fromIndex` to `toIndex` on the same host in one of many equivalent
 * ways; with `withQuery` it may also add `?v=N`, which makes it a different URL.
 */
function spellInternal(
  rng: Random,
  origin: string,
  fromIndex: number,
  toIndex: number,
  withQuery = true,
): string {
  const target = pagePath(toIndex);
  let style = rng.int(0, 9);
  if (!withQuery && (style === 5 || (toIndex === 0 && style % 5 === 4))) {
    style = toIndex === 0 ? 0 : 9;
  }
  if (toIndex === 0) {
    // `../` from `/p/N` and from `/` both resolve to `/`.
    return ['/', `${origin}/`, '/#top', '../', '/?v=1'][style % 5] as string;
  }
  switch (style) {
    case 0:
      return `${origin}${target}`;
    case 1:
      return fromIndex === 0 ? `p/${toIndex}` : `${toIndex}`;
    case 2:
      return fromIndex === 0 ? `./p/${toIndex}` : `../p/${toIndex}`;
    case 3:
      return `${target}#sec-${rng.int(1, 3)}`;
    case 4:
      return `/P/..${target}`;
    case 5:
      return `${target}?v=${rng.int(1, 2)}`;
    case 6:
      return `//${origin.slice('http://'.length)}${target}`;
    default:
      return target;
  }
}

interface Draft {
  name: string;
  parent?: string;
  behaviours: HostBehaviour[];
  pageCount: number;
}

function assignBehaviours(
  options: ResolvedTestWebOptions,
  siteHosts: string[],
): Map<string, HostBehaviour[]> {
  if (options.behaviours === 'none') return new Map();
  if (options.behaviours === 'default-mix') return defaultMix(siteHosts, options.seed);
  return new Map(Object.entries(options.behaviours).map(([h, b]) => [h, [...b]]));
}

/** Builds the model for `options` served on `port`. Pure and deterministic. */
export function buildModel(options: ResolvedTestWebOptions, port: number): WebModel {
  const origin = (host: string): string => `http://${host}:${port}`;
  const siteHosts = Array.from({ length: options.hosts }, (_, i) => `site${i + 1}.test`);
  const behaviours = assignBehaviours(options, siteHosts);

  const drafts: Draft[] = [];
  const subdomainDrafts: Draft[] = [];
  for (let i = 1; i <= options.hosts; i++) {
    const name = `site${i}.test`;
    const rng = new Random(deriveSeed(options.seed, `pages:${name}`));
    const [min, max] = options.pagesPerHost;
    drafts.push({ name, behaviours: behaviours.get(name) ?? [], pageCount: rng.int(min, max) });
    if (hasSubdomains(i)) {
      for (const sub of SUBDOMAINS) {
        subdomainDrafts.push({
          name: `${sub}.${name}`,
          parent: name,
          behaviours: [],
          pageCount: SUBDOMAIN_PAGES,
        });
      }
    }
  }
  const allDrafts = [...drafts, ...subdomainDrafts];

  const hosts = new Map<string, HostModel>();
  for (const draft of allDrafts) {
    hosts.set(draft.name, buildHost(draft, allDrafts, options, origin));
  }
  return {
    port,
    options,
    hosts,
    siteHosts,
    origin,
    lookup: (host, pathname) => hosts.get(host)?.resources.get(pathname),
  };
}

function buildHost(
  draft: Draft,
  all: readonly Draft[],
  options: ResolvedTestWebOptions,
  originOf: (host: string) => string,
): HostModel {
  const rng = new Random(deriveSeed(options.seed, `links:${draft.name}`));
  const origin = originOf(draft.name);
  const resources = new Map<string, Resource>();
  const traps: string[] = [];
  const k = draft.pageCount - 1;
  const robotsVariant = draft.behaviours.find(isRobotsBehaviour) as RobotsBehaviour | undefined;
  const pageBehaviours = draft.behaviours.filter((b) => !isRobotsBehaviour(b)) as PageBehaviour[];

  const linksOf: LinkSpec[][] = Array.from({ length: draft.pageCount }, () => []);
  // A 3-ary tree guarantees every page is reachable from `/` within log3(K) hops.
  for (let child = 1; child <= k; child++) {
    const parent = Math.floor((child - 1) / 3);
    linksOf[parent]?.push({ href: spellInternal(rng, origin, parent, child, false) });
  }
  for (let page = 0; page <= k; page++) {
    const links = linksOf[page] as LinkSpec[];
    const extras = rng.int(1, 4);
    for (let e = 0; e < extras; e++) {
      if (all.length > 1 && rng.chance(options.crossLinkRatio)) {
        let other = rng.pick(all);
        while (other.name === draft.name) other = rng.pick(all);
        const to = rng.int(0, other.pageCount - 1);
        const otherOrigin = originOf(other.name);
        const spelled = rng.chance(0.5)
          ? `${otherOrigin}${pagePath(to)}`
          : `//${otherOrigin.slice('http://'.length)}${pagePath(to)}`;
        links.push({ href: rng.chance(0.2) ? `${spelled}#from-${draft.name}` : spelled });
      } else {
        links.push({ href: spellInternal(rng, origin, page, rng.int(0, k)) });
      }
    }
    // The same target again, spelled differently: a crawler must fetch it once.
    if (k > 0 && rng.chance(0.3)) {
      const to = rng.int(1, k);
      links.push({ href: `/p/${to}#dup` }, { href: `/P/../p/${to}` });
    }
    if (rng.chance(0.05)) links.push({ href: `/missing/${page}` });
  }
  if (draft.parent !== undefined) linksOf[0]?.push({ href: `${originOf(draft.parent)}/` });
  const rootLinks = linksOf[0] as LinkSpec[];
  for (const sub of all) {
    if (sub.parent === draft.name) rootLinks.push({ href: `${originOf(sub.name)}/` });
  }

  const html = (
    title: string,
    links: LinkSpec[],
    extra: Partial<HtmlResource> & { text?: string } = {},
  ): HtmlResource => {
    const { text, ...rest } = extra;
    return {
      kind: 'html',
      status: 200,
      contentType: 'text/html; charset=utf-8',
      links,
      body: renderPage({ title, links, text }),
      ...rest,
    };
  };
  const special = (path: string, resource: Resource, linkFromRoot = true): void => {
    resources.set(path, resource);
    if (linkFromRoot) rootLinks.push({ href: path });
  };
  const trap = (path: string): void => {
    traps.push(path);
    resources.set(path, html(`${draft.name} trap ${path}`, [{ href: '/' }]));
  };

  if (robotsVariant !== undefined && robotsVariant !== 'robots-404') {
    special('/private/area', html(`${draft.name} private`, [{ href: '/' }]));
  }
  for (const behaviour of pageBehaviours) {
    addBehaviourPages(behaviour, { draft, options, origin, html, special, trap, rootLinks });
  }

  for (let page = 0; page <= k; page++) {
    resources.set(pagePath(page), html(`${draft.name} page ${page}`, linksOf[page] as LinkSpec[]));
  }
  return {
    name: draft.name,
    ...(draft.parent === undefined ? {} : { parent: draft.parent }),
    behaviours: draft.behaviours,
    pageCount: draft.pageCount,
    robots: robotsResponse(robotsVariant, deriveSeed(options.seed, `robots:${draft.name}`)),
    resources,
    traps,
  };
}

interface BehaviourContext {
  draft: Draft;
  options: ResolvedTestWebOptions;
  origin: string;
  html(
    title: string,
    links: LinkSpec[],
    extra?: Partial<HtmlResource> & { text?: string },
  ): HtmlResource;
  special(path: string, resource: Resource, linkFromRoot?: boolean): void;
  trap(path: string): void;
  rootLinks: LinkSpec[];
}

function addBehaviourPages(behaviour: PageBehaviour, ctx: BehaviourContext): void {
  const { draft, options, origin, html, special, trap, rootLinks } = ctx;
  const home: LinkSpec[] = [{ href: '/' }];
  switch (behaviour) {
    case 'slow':
      special('/slow/1', html('slow 1', home, { delayMs: options.slowMs }));
      special('/slow/2', html('slow 2', home, { delayMs: options.slowMs }));
      return;
    case 'drip':
      special('/drip', html('drip', home, { dripMs: options.dripMs, text: 'x'.repeat(2000) }));
      return;
    case 'huge-body': {
      const page = html('huge', home);
      page.body = renderPage({ title: 'huge', links: home, open: true });
      page.padToBytes = options.hugeBodyBytes;
      special('/huge', page);
      return;
    }
    case 'retry-429':
    case 'retry-503': {
      const status = behaviour === 'retry-429' ? 429 : 503;
      const child = `/retry/${status}-child`;
      special(
        `/retry/${status}`,
        html(`retry ${status}`, [{ href: child }], {
          failFirst: { count: options.failFirstCount, status, retryAfterS: options.retryAfterS },
        }),
      );
      special(child, html(`retry ${status} child`, home), false);
      return;
    }
    case 'error-500': {
      const page = html('broken', []);
      page.status = 500;
      special('/broken', page);
      return;
    }
    case 'redirect-chain':
      special('/chain/1', { kind: 'redirect', status: 301, location: '/chain/2' });
      special('/chain/2', { kind: 'redirect', status: 302, location: `${origin}/chain/3` }, false);
      special('/chain/3', { kind: 'redirect', status: 308, location: 'end' }, false);
      special('/chain/end', html('chain end', home), false);
      return;
    case 'redirect-loop':
      special('/loop/a', { kind: 'redirect', status: 302, location: '/loop/b' });
      special('/loop/b', { kind: 'redirect', status: 302, location: '/loop/a' }, false);
      return;
    case 'non-html':
      special('/files/pixel.png', { kind: 'file', contentType: 'image/png', body: PNG_PIXEL });
      special('/files/paper.pdf', { kind: 'file', contentType: 'application/pdf', body: PDF_DOC });
      special('/files/notes.txt', {
        kind: 'file',
        contentType: 'text/plain; charset=utf-8',
        body: Buffer.from('Plain text, not HTML: <a href="/hidden/in-text">no link</a>\n'),
      });
      trap('/hidden/in-text');
      trap('/hidden/in-pdf');
      return;
    case 'base-href': {
      const links = [{ href: 'leaf' }, { href: '../sibling' }];
      const baseHref = `${origin}/deep/dir/`;
      const page = html('based', links, { baseHref });
      page.body = renderPage({ title: 'based', links, baseHref });
      special('/based/page', page);
      special('/deep/dir/leaf', html('leaf', home), false);
      special('/deep/sibling', html('sibling', home), false);
      return;
    }
    case 'nofollow-link':
      rootLinks.push({ href: '/hidden/nofollow', rel: 'nofollow' });
      rootLinks.push({ href: '/hidden/nofollow-2', rel: 'noopener NoFollow' });
      trap('/hidden/nofollow');
      trap('/hidden/nofollow-2');
      return;
    case 'meta-nofollow': {
      for (const [path, metaName, content, hidden] of [
        ['/meta/nofollow', 'robots', 'nofollow', '/hidden/meta-nofollow'],
        ['/meta/nofollow-upper', 'ROBOTS', 'NOINDEX, NOFOLLOW', '/hidden/meta-nofollow-2'],
      ] as const) {
        const links = [{ href: hidden }, { href: '/' }];
        const page = html(path, links, { metaRobots: content.toLowerCase() });
        page.body = renderPage({ title: path, links, metaRobots: content, metaName });
        special(path, page);
        trap(hidden);
      }
      return;
    }
    case 'meta-noindex': {
      const links = [{ href: '/meta/noindex-child' }];
      const page = html('noindex', links, { metaRobots: 'noindex' });
      page.body = renderPage({ title: 'noindex', links, metaRobots: 'noindex' });
      special('/meta/noindex', page);
      special('/meta/noindex-child', html('noindex child', home), false);
      return;
    }
    case 'header-nofollow':
      special(
        '/xrobots/nofollow',
        html('x-robots-tag', [{ href: '/hidden/xrobots' }], { xRobotsTag: 'nofollow' }),
      );
      trap('/hidden/xrobots');
      return;
    case 'charset':
      for (const [path, where, word, target] of [
        ['/charset/header', 'header', 'café', '/charset/caf%C3%A9'],
        ['/charset/meta', 'meta', 'naïve', '/charset/na%C3%AFve'],
      ] as const) {
        // The href holds a raw ISO-8859-1 byte; URL parsing re-encodes it as UTF-8.
        const links = [{ href: `/charset/${word}` }, { href: '/' }];
        const page = html(path, links, {
          contentType: where === 'header' ? 'text/html; charset=iso-8859-1' : 'text/html',
        });
        page.body = renderPage({
          title: `${draft.name} ${word}`,
          links,
          text: `Crème brûlée, ${word}`,
          charset: 'latin1',
          declareMeta: where === 'meta',
        });
        special(path, page);
        special(target, html(`${word} target`, home), false);
      }
      return;
  }
}
