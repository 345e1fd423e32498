/**
 * The dashboard in headless Chromium (Debian's `chromium`, driven by playwright-core)
 * against a running API over a seeded Redis: the ring as one arc per pod and a domain found
 * on it, pods, top domains with their status, errors by code, dead letters, the domain page
 * and a requeue (then what Redis holds), and the layout at 420 px. Screenshots go to
 * `test-artifacts/` (gitignored): dashboard.png, dashboard-domain.png, dashboard-420.png.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RedisRobotsCache } from '@shardline/crawler';
import { CrawlRegistry, RedisFrontier } from '@shardline/frontier';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Fixture, PODS, startFixture, TOKEN } from './fixture.js';

const ARTIFACTS = join(import.meta.dirname, '..', '..', '..', 'test-artifacts');
const FAILING = 'always-fails.test';
const DNS = 'SHARDLINE_ERR_FETCH_DNS';
let fx: Fixture;
let cache: RedisRobotsCache;
let browser: BrowserContext;
let profile: string;

beforeAll(async () => {
  fx = await startFixture({ robots: (origin) => cache.get(origin) }, 4);
  cache = new RedisRobotsCache({ redis: fx.redis });
  await fx.fetchSome(3);
  profile = mkdtempSync(join(tmpdir(), 'shardline-chromium-'));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1400, height: 1000 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
});

afterAll(async () => {
  await browser?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await fx?.close();
});

/** Waits for the page's next completed refresh (body[data-refreshes] changes). */
async function nextRefresh(page: Page): Promise<void> {
  const seen = (await page.locator('body').getAttribute('data-refreshes')) ?? '';
  await page.locator(`body[data-refreshes]:not([data-refreshes="${seen}"])`).waitFor({
    state: 'attached',
  });
}

/** A domain whose every attempt fails with a DNS error and dead-letters. */
async function failEverything(): Promise<string> {
  await fx.frontier.enqueue([1, 2, 3].map((i) => `http://${FAILING}/p${i}`));
  const owner = fx.ring.owner(FAILING);
  const { leases } = await fx.frontier.claim({ pod: owner, max: 100 });
  for (const lease of leases) {
    if (lease.domain === FAILING) {
      await fx.frontier.fail(lease, { retryable: false, reason: DNS, status: 0 });
    } else {
      await fx.frontier.release(lease);
    }
  }
  return owner;
}

describe('dashboard', () => {
  it('ring, pods, domains, errors by code, dead letters, the domain page and a requeue', async () => {
    const page = await browser.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    page.on('requestfailed', (request) => failures.push(`${request.url()} failed`));
    page.on('response', (r) => {
      if (r.status() >= 400) failures.push(`${r.url()} ${r.status()}`);
    });
    await page.goto(`${fx.base}/`);
    await page.locator('body[data-refreshes]').waitFor({ state: 'attached' });

    // Ring: one arc per pod (two halves when a pod has more than half), not thousands.
    for (const pod of PODS) {
      const arcs = await page.locator(`#ring-arcs path.arc[data-pod="${pod}"]`).count();
      expect(arcs).toBeGreaterThanOrEqual(1);
      expect(arcs).toBeLessThanOrEqual(2);
    }
    expect(await page.locator('#ring-legend li').allTextContents()).toHaveLength(2);
    expect(await page.locator('#ring-center').textContent()).toBe('2 pods');
    // A domain found on the ring: its owner named, a marker drawn.
    const target = fx.domains[0]!;
    await page.locator('#ring-query').fill(target.domain.toUpperCase());
    await page.locator('#ring-find button').click();
    await page.locator(`#ring-marker line[data-domain="${target.domain}"]`).waitFor();
    expect(await page.locator('#ring-found').textContent()).toContain(`→ ${target.owner}`);

    // Pods: membership source, state, owned domains and fetched counts.
    expect(await page.locator('#pods-membership').textContent()).toBe(
      'Fixed membership (--pods), epoch 0.',
    );
    const podColumns = await page.locator('#pods-table thead th').allTextContents();
    for (const pod of PODS) {
      const cells = await page
        .locator(`#pods-table tbody tr[data-pod="${pod}"] td`)
        .allTextContents();
      expect(cells[0]).toBe(pod);
      expect(cells[1]).toBe('alive');
      const owned = fx.domains.filter((d) => d.owner === pod && d.urls > 0).length;
      expect(cells[podColumns.indexOf('Owned domains')]).toBe(String(owned));
      expect(cells[podColumns.indexOf('Fetched')]).toBe(String(fx.fetchedBy.get(pod)));
    }

    // Top domains: deepest first, with their depth, owner and status.
    const rows = page.locator('#domains-table tbody tr');
    expect(await rows.count()).toBe(fx.domains.length);
    for (const [i, d] of fx.domains.entries()) {
      const cells = await rows.nth(i).locator('td').allTextContents();
      expect(cells.slice(0, 3)).toEqual([d.domain, d.owner, d.urls.toLocaleString('en-US')]);
      expect(cells[7]).toBe('active');
    }

    // Fetches and failures between polls: the rate chart and the errors-by-code chart.
    await fx.fetchSome(2);
    await nextRefresh(page);
    const owner = await failEverything();
    await fx.fetchSome(2);
    await nextRefresh(page);
    await nextRefresh(page);
    expect(await page.locator('#chart path[data-series="all pods"]').count()).toBe(1);
    expect(await page.locator(`#errors-chart path[data-series="${DNS}"]`).count()).toBe(1);
    expect(await page.locator(`#errors-legend li[data-code="${DNS}"]`).textContent()).toBe(
      'FETCH_DNS 3',
    );
    expect(await page.locator('#dead-table tbody tr').count()).toBe(3);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard.png'), fullPage: true });

    // The domain page, reached by clicking the domain in the dead letters.
    await cache.set(
      `http://${FAILING}`,
      {
        v: 1,
        robots: { groups: [] } as never,
        fetchedAtMs: Date.now(),
        expiresAtMs: Date.now() + 3_600_000,
      },
      3_600_000,
    );
    await page.locator(`#dead-table button[data-domain="${FAILING}"]`).first().click();
    await page.locator('#domain-page:not([hidden])').waitFor();
    await page.locator('#domain-status').getByText('failing').waitFor();
    expect(await page.locator('#domain-owner').textContent()).toBe(owner);
    expect(await page.locator('#domain-dead').textContent()).toBe('3');
    expect(await page.locator('#domain-hosts tbody tr[data-host] td').first().textContent()).toBe(
      FAILING,
    );
    expect(await page.locator('#domain-letters tbody tr').count()).toBe(3);
    expect(await page.locator('#domain-robots').textContent()).toContain(`http://${FAILING}`);
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-domain.png'), fullPage: true });

    // Requeue without a token is refused and changes nothing; with the token it moves them.
    await page.locator('#requeue').click();
    expect(await page.locator('#requeue-result').textContent()).toContain('token');
    expect(await fx.frontier.inspector.deadLettersKept(FAILING)).toBe(3);
    await page.locator('#token').fill('wrong-token-0123456789');
    await page.locator('#requeue').click();
    await page.locator('#requeue-result[data-outcome="refused"]').waitFor();
    expect(await fx.frontier.inspector.deadLettersKept(FAILING)).toBe(3);
    await page.locator('#token').fill(TOKEN);
    await page.locator('#requeue').click();
    await page.locator('#requeue-result[data-outcome="ok"]').waitFor();
    expect(await page.locator('#requeue-result').textContent()).toBe('requeued 3');
    const stats = await fx.frontier.inspector.domainStats(FAILING);
    expect([stats.queued, stats.dead]).toEqual([3, 0]);
    expect(await fx.frontier.inspector.deadLettersKept(FAILING)).toBe(0);
    const due = await fx.frontier.inspector.dueHosts(owner, { limit: 1000 });
    expect(due.some((h) => h.domain === FAILING)).toBe(true);
    await page.locator('#domain-dead').getByText('0').waitFor();
    // An operator's block of the whole domain is a fact of the page, with its end.
    const blockedUntil = Date.parse('2099-01-01T00:00:00.000Z');
    await fx.frontier.blockUntil({ domain: FAILING }, blockedUntil);
    await page.locator('#domain-blocked').getByText('2099-01-01T00:00:00.000Z').waitFor();
    // A domain whose refilling budget (one page an hour) is spent says until when it waits.
    const budgeted = new RedisFrontier({
      redis: fx.redis,
      ownerOf: () => owner,
      domainBudget: { pages: 1, periodMs: 3_600_000 },
    });
    await budgeted.enqueue(['http://budget-dash.com/a', 'http://budget-dash.com/b']);
    await budgeted.claim({ pod: owner, max: 1000 });
    const { budgetRefillAtMs } = await budgeted.inspector.domainStats('budget-dash.com');
    await page.goto(`${fx.base}/#domain=budget-dash.com`);
    await page
      .locator('#domain-budget')
      .getByText(`1 claimed this window; spent until ${new Date(budgetRefillAtMs).toISOString()}`)
      .waitFor();
    // The 401 of the wrong token is the only failed request.
    expect(failures).toEqual([`${fx.base}/v1/domains/${FAILING}/dead-letters/requeue 401`]);
    await page.close();
  });

  it('shows any fault a pod reports and a lost frontier, in /metrics too; holds its layout at 420 px', async () => {
    // What pods publish from stats().faults (any kind), and a pod finding the frontier lost.
    await fx.frontier.reportFaults('pod-a', { redisOom: 2, 'frontier.forward': 0, newKind: 1 });
    await expect(fx.frontier.checkIdentity('identity-before-restart', 'pod-b')).rejects.toThrow();
    const metrics = (await call(fx.base, '/metrics')).body as string;
    expect(metrics).toContain('shardline_pod_faults{pod="pod-a",kind="redisOom"} 2');
    expect(metrics).toContain('shardline_pod_faults{pod="pod-a",kind="newKind"} 1');
    expect(metrics).toContain('shardline_frontier_lost 1');

    const page = await browser.newPage();
    await page.setViewportSize({ width: 420, height: 900 });
    await page.goto(`${fx.base}/`);
    await page.locator('body[data-refreshes]').waitFor({ state: 'attached' });
    await nextRefresh(page);
    expect(await page.locator('#alert').textContent()).toMatch(
      /^SHARDLINE_ERR_FRONTIER_LOST: pod pod-b found the frontier lost/,
    );
    const podColumns = await page.locator('#pods-table thead th').allTextContents();
    const faults = await page
      .locator('#pods-table tr[data-pod="pod-a"] td')
      .nth(podColumns.indexOf('Faults'))
      .textContent();
    expect(faults).toBe('redisOom 2, newKind 1');
    for (const selector of ['header', 'main', 'main > section', '.stack > section', '#ring']) {
      for (const box of await Promise.all(
        (await page.locator(selector).all()).map((l) => l.boundingBox()),
      )) {
        if (box === null) continue; // hidden (the domain page)
        expect(box.x, selector).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width, selector).toBeLessThanOrEqual(420);
      }
    }
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-420.png'), fullPage: true });
    await page.close();
  });

  it('a crawl deleted while shown goes back to the default crawl, and the page stays live', async () => {
    const brief = new RedisFrontier({ redis: fx.redis, crawlId: 'brief', ownerOf: () => 'p' });
    await brief.enqueue(['http://brief.test/a', 'http://brief.test/b']);
    const page = await browser.newPage();
    await page.goto(`${fx.base}/`);
    await page.locator('#crawl option[value="brief"]').waitFor({ state: 'attached' });
    await page.selectOption('#crawl', 'brief');
    await nextRefresh(page);
    await nextRefresh(page);
    expect(await page.locator('#t-queued').textContent()).toBe('2');

    const registry = new CrawlRegistry({ redis: fx.redis });
    await registry.markDeleting('brief');
    await registry.delete('brief');
    await nextRefresh(page);
    expect(await page.locator('#crawl').inputValue()).toBe('default');
    expect(await page.locator('#status').getAttribute('class')).toBe('live');
    const defaultQueued = (await call(fx.base, '/v1/stats')).body.queued;
    expect(await page.locator('#t-queued').textContent()).toBe(
      defaultQueued.toLocaleString('en-US'),
    );
    await page.close();
  });
});
