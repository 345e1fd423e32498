/**
 * The dashboard in headless Chromium (Debian's `chromium`, driven by playwright-core)
 * against a running API over a seeded Redis. Saves `test-artifacts/dashboard.png`.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fixture, PODS, startFixture } from './fixture.js';

const ARTIFACTS = join(import.meta.dirname, '..', '..', '..', 'test-artifacts');
let fx: Fixture;
let browser: BrowserContext;
let profile: string;

beforeAll(async () => {
  fx = await startFixture({}, 4);
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

describe('dashboard', () => {
  it('draws the ring and the tables from the seeded state, and a fetch rate', async () => {
    const page = await browser.newPage();
    const failures: string[] = [];
    page.on('pageerror', (error) => failures.push(error.message));
    page.on('requestfailed', (request) => failures.push(`${request.url()} failed`));
    await page.goto(`${fx.base}/`);
    // The page counts its completed refreshes in body[data-refreshes]; waiting on
    // selectors needs no page-side eval (which the page's CSP forbids).
    await page.locator('body[data-refreshes]').waitFor({ state: 'attached' });

    // Ring: arcs for both pods, legend naming them.
    for (const pod of PODS) {
      expect(await page.locator(`#ring-arcs path.arc[data-pod="${pod}"]`).count()).toBeGreaterThan(
        0,
      );
    }
    expect(await page.locator('#ring-legend li').allTextContents()).toHaveLength(2);
    expect(await page.locator('#ring-center').textContent()).toBe('2 pods');

    // Pods table: where membership comes from, owned domains per pod as seeded, fetched counts.
    expect(await page.locator('#pods-membership').textContent()).toBe(
      'Fixed membership (--pods), epoch 0.',
    );
    for (const pod of PODS) {
      const cells = await page
        .locator(`#pods-table tbody tr[data-pod="${pod}"] td`)
        .allTextContents();
      expect(cells[0]).toBe(pod);
      expect(cells[1]).toBe('alive');
      const owned = fx.domains.filter((d) => d.owner === pod && d.urls > 0).length;
      expect(cells[4]).toBe(String(owned));
      expect(cells[7]).toBe(String(fx.fetchedBy.get(pod)));
    }

    // Top domains: deepest first, with their depth and owner.
    const rows = page.locator('#domains-table tbody tr');
    expect(await rows.count()).toBe(fx.domains.length);
    for (const [i, d] of fx.domains.entries()) {
      const cells = await rows.nth(i).locator('td').allTextContents();
      expect(cells.slice(0, 3)).toEqual([d.domain, d.owner, d.urls.toLocaleString('en-US')]);
    }
    expect(await page.locator('#t-queued').textContent()).toBe(
      fx.domains.reduce((n, d) => n + d.urls, 0).toLocaleString('en-US'),
    );

    // Fetch some more between polls: the rate and the chart line must show it.
    let fetched = 0;
    for (let round = 0; round < 3; round++) {
      const seen = await page.locator('body').getAttribute('data-refreshes');
      fetched += await fx.fetchSome(2);
      await page.locator(`body:not([data-refreshes="${seen}"])`).waitFor({ state: 'attached' });
    }
    expect(fetched).toBeGreaterThan(0);
    expect(await page.locator('#chart path[data-series="all pods"]').count()).toBe(1);
    expect(await page.locator('#t-fetched').textContent()).toBe(
      [...fx.fetchedBy.values()].reduce((a, b) => a + b, 0).toLocaleString('en-US'),
    );
    expect(await page.locator('#status').getAttribute('class')).toBe('live');
    expect(failures).toEqual([]);

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard.png'), fullPage: true });
  });
});
