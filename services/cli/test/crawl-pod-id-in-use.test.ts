/**
 * Two `shardline crawl` on one data dir share its embedded Redis and, by default, one pod id
 * (the host name). The second used to take the first one's session over as a restart: it
 * requeued the first one's leases (the same pages fetched twice, by two processes at once) and
 * closed its open WARC file as if left by a crash. It is now refused in one line, and the
 * first crawl goes on untouched.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { runCliWith } from './run-cli-with.js';
import { type SlowPagesSite, slowSiteFlags, startSlowPagesSite } from './slow-pages-site.js';
import { type LiveCli, spawnCli } from './spawn-cli.js';

let site: SlowPagesSite;
// The slow pages answer once the second process has been refused: the first still crawls then.
let releaseSlowPages: () => void = () => undefined;
const secondRefused = new Promise<void>((resolve) => {
  releaseSlowPages = resolve;
});
let dir: string;
let first: LiveCli | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'crawl-pod-id-'));
  site = await startSlowPagesSite(() => secondRefused);
});

afterAll(async () => {
  releaseSlowPages();
  first?.kill();
  await site.close();
  rmSync(dir, { recursive: true, force: true });
});

it('a second crawl on the same data dir (same pod id) is refused; the first loses nothing', async () => {
  const dataDir = join(dir, 'data');
  const crawl = (seed: string) => [
    'crawl',
    '--data-dir',
    dataDir,
    ...slowSiteFlags(site),
    '--exit-when-idle',
    seed,
  ];
  first = spawnCli(crawl(`http://site.test:${site.port}/`));
  await vi.waitFor(
    () => expect(site.requests.filter((p) => p.startsWith('/slow/'))).toHaveLength(3),
    {
      timeout: 30_000,
      interval: 50,
    },
  );

  const second = await runCliWith(crawl(`http://site.test:${site.port}/other`), {
    killAfterMs: 30_000,
  });
  releaseSlowPages();
  expect(second.code).toBe(2);
  // It left nothing: it held nothing in the registry (the first pod's session is untouched).
  expect(second.stderr).not.toMatch(/membership left|join had failed/);
  expect(second.stderr).toMatch(
    /^error: pod id \S+ is in use by another live pod \(\S+\/\d+\): give each pod its own id \(--pod-id, POD_ID\), or stop the other$/m,
  );

  const { code } = await first.exited;
  expect(first.stderr()).not.toMatch(/WARC|session had expired/);
  expect(code).toBe(0);
  expect(JSON.parse(first.stdout().trim())).toMatchObject({ fetched: 4, summary: { pages: 4 } });
  // Each page once: nothing of the first crawl was requeued and fetched again.
  expect([...site.requests].sort()).toEqual(['/', '/slow/1', '/slow/2', '/slow/3']);
}, 90_000);
