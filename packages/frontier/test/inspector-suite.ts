/**
 * FrontierInspector against what a RedisFrontier wrote, run on a single redis-server and
 * on a three-master Redis Cluster (inspector*.test.ts). The inspector is built standalone
 * (its own connection, only the prefix), as the API and the CLI build it.
 */

import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FrontierInspector, RedisFrontier } from '../src/index.js';
import { LIVE_LAYOUT } from './frontier-fixture.js';
import { type SuiteBackend, suiteConnections } from './frontier-suite.js';

export function describeInspector(name: string, start: () => Promise<SuiteBackend>): void {
  describe(`FrontierInspector on ${name}`, () => {
    const connect = suiteConnections(start);

    /** A frontier whose owner can be switched, and a standalone inspector on its prefix. */
    const setup = () => {
      const prefix = `i${randomUUID().slice(0, 8)}`;
      const at = { owner: 'pod-a' };
      const frontier = new RedisFrontier({
        redis: connect(),
        prefix,
        ownerOf: () => at.owner,
        defaultDelayMs: 0,
        ...LIVE_LAYOUT,
      });
      const inspector = new FrontierInspector({ redis: connect(), prefix });
      return { frontier, inspector, at };
    };

    it('reads domains, their indexes, queue heads and due entries', async () => {
      const { frontier, inspector } = setup();
      expect(await inspector.domainCount()).toBe(0);
      await frontier.enqueue([
        { url: 'https://alpha.com/1', priority: 2, depth: 3, meta: 'ref' },
        'https://alpha.com/2',
        'https://www.alpha.com/1',
        'https://beta.com/1',
        'https://beta.com/2',
        'https://gamma.com/1',
      ]);
      expect(await inspector.domainCount()).toBe(3);
      expect(await inspector.hasDomain('alpha.com')).toBe(true);
      expect(await inspector.hasDomain('nowhere.example')).toBe(false);
      expect(await inspector.hasDomain('not a/domain')).toBe(false);
      expect(await inspector.domainHosts('alpha.com')).toEqual(['alpha.com', 'www.alpha.com']);
      expect(await inspector.queueHead('alpha.com', 'alpha.com')).toEqual({
        url: 'https://alpha.com/1',
        host: 'alpha.com',
        domain: 'alpha.com',
        priority: 2,
        depth: 3,
        attempt: 0,
        meta: 'ref',
      });
      expect(await inspector.queueHead('alpha.com', 'none.alpha.com')).toBeNull();

      const all = [
        { domain: 'alpha.com', count: 3 },
        { domain: 'beta.com', count: 2 },
        { domain: 'gamma.com', count: 1 },
      ];
      expect(await inspector.domains()).toEqual(all);
      // Keyset pages: at most a count, then skip the ones of that count already seen.
      expect(await inspector.domains({ maxCount: 2 })).toEqual(all.slice(1));
      expect(await inspector.domains({ maxCount: 2, offset: 1, limit: 5 })).toEqual(all.slice(2));
      const sample = await inspector.sampleDomains(10);
      expect(sample.sort((x, y) => (x.domain < y.domain ? -1 : 1))).toEqual(all);
      expect(await inspector.sampleDomains(2)).toHaveLength(2);

      expect(await inspector.pods()).toEqual(['pod-a']);
      expect(await inspector.dueHostCount('pod-a')).toBe(4);
      expect(await inspector.dueHostCount('pod-b')).toBe(0);
      const due = await inspector.dueHosts('pod-a');
      const entries = await inspector.dueEntries('pod-a');
      expect(entries.map(({ domain, host, dueAtMs }) => ({ domain, host, dueAtMs }))).toEqual(due);
      for (const e of entries) {
        expect(e.seq).toBeGreaterThan(0);
        // The enqueue pinned every host it woke (pinMs default 30 s).
        expect(e.pinnedUntilMs).toBeGreaterThan(e.dueAtMs);
      }
      expect(await inspector.queuedDomainsOf('pod-a')).toEqual([
        'alpha.com',
        'beta.com',
        'gamma.com',
      ]);
      expect(await inspector.stats()).toEqual(await frontier.stats());
      expect(await inspector.domainStats('beta.com')).toMatchObject({ queued: 2, seen: 2 });
    });

    it('decodes a host state: policy overrides, the gate, backoff and failures', async () => {
      const { frontier, inspector } = setup();
      expect(await inspector.hostState('h.example', 'h.example')).toEqual({
        domain: 'h.example',
        host: 'h.example',
        queued: 0,
        inFlight: 0,
        nextAllowedAtMs: 0,
        concurrency: null,
        delayMs: null,
        crawlDelayMs: 0,
        backoffMs: 0,
        adaptiveDelayMs: 0,
        adaptiveReason: null,
        blockedUntilMs: 0,
        consecutiveFailures: 0,
        crawlLimit: null,
        fetched: 0,
      });
      await frontier.enqueue(['https://h.example/1', 'https://h.example/2']);
      await frontier.setHostPolicy('h.example', {
        concurrency: 2,
        delayMs: 500,
        crawlDelayMs: 1500,
      });
      const [lease] = (await frontier.claim({ pod: 'pod-a', max: 2 })).leases;
      expect(await inspector.hostState('h.example', 'h.example')).toMatchObject({
        queued: 1,
        inFlight: 1,
        nextAllowedAtMs: lease!.claimedAtMs + 1500,
        concurrency: 2,
        delayMs: 500,
        crawlDelayMs: 1500,
        backoffMs: 0,
        consecutiveFailures: 0,
      });
      await frontier.fail(lease!, { retryable: true, reason: 'timeout' });
      const failed = await inspector.hostState('h.example', 'h.example');
      expect(failed).toMatchObject({ queued: 2, inFlight: 0, consecutiveFailures: 1 });
      // Backoff: backoffBaseMs (1000) × (0.5 + 0.5 × jitter).
      expect(failed.backoffMs).toBeGreaterThanOrEqual(500);
      expect(failed.backoffMs).toBeLessThanOrEqual(1000);
    });

    it('counts and pages dead letters by domain', async () => {
      const { frontier, inspector } = setup();
      await frontier.enqueue([
        'https://d1.example/1',
        'https://d1.example/2',
        'https://d2.example/1',
      ]);
      expect(await inspector.deadLetterDomainCount()).toBe(0);
      // Two rounds: d1's second URL waits for its first (concurrency 1).
      for (let round = 0; round < 2; round++) {
        for (const lease of (await frontier.claim({ pod: 'pod-a', max: 3 })).leases) {
          await frontier.fail(lease, { retryable: false, reason: 'http-404', status: 404 });
        }
      }
      expect(await inspector.deadLetterDomainCount()).toBe(2);
      expect(await inspector.deadLettersHeld('d1.example')).toBe(2);
      expect(await inspector.deadLettersHeld('none.example')).toBe(0);
      expect(await inspector.deadLettersKept('d1.example')).toBe(2);
      const held = [
        { domain: 'd1.example', count: 2 },
        { domain: 'd2.example', count: 1 },
      ];
      expect(await inspector.deadLetterDomains()).toEqual(held);
      expect(await inspector.deadLetterDomains({ maxCount: 1 })).toEqual(held.slice(1));
      expect(await inspector.deadLetterDomains({ maxCount: 2, offset: 1 })).toEqual(held.slice(1));
      expect(await inspector.deadLetterDomains({ maxCount: 0.5 })).toEqual([]);
      expect((await inspector.deadLetters('d1.example')).map((d) => d.url).sort()).toEqual([
        'https://d1.example/1',
        'https://d1.example/2',
      ]);
    });

    it('finds a host with work that is missing from its owner due index (stranded)', async () => {
      const { frontier, inspector, at } = setup();
      await frontier.enqueue(['https://s.example/1', 'https://idle.example/1']);
      const [lease] = (await frontier.claim({ pod: 'pod-a', max: 2 })).leases.filter(
        (l) => l.domain === 'idle.example',
      );
      await frontier.complete(lease!);
      // The ring moves every domain to pod-b; nothing was reindexed yet.
      at.owner = 'pod-b';
      expect(await inspector.isStranded('s.example', 'pod-b')).toBe(true);
      expect(await inspector.isStranded('s.example', 'pod-a')).toBe(false);
      // A host with nothing queued or in flight is not stranded anywhere.
      expect(await inspector.isStranded('idle.example', 'pod-b')).toBe(false);
      await frontier.reindex('s.example');
      expect(await inspector.isStranded('s.example', 'pod-b')).toBe(false);
      expect(await inspector.queuedDomainsOf('pod-b')).toEqual(['s.example']);
    });

    it('counts the domains with work, not the finished hosts the due index still lists', async () => {
      const { frontier, inspector } = setup();
      await frontier.enqueue([
        'https://w1.example/1',
        'https://w2.example/1',
        'https://w3.example/1',
      ]);
      const { leases } = await frontier.claim({ pod: 'pod-a', max: 3 });
      expect(leases).toHaveLength(3);
      const byDomain = new Map(leases.map((l) => [l.domain, l]));
      await frontier.complete(byDomain.get('w1.example')!);
      await frontier.complete(byDomain.get('w2.example')!);
      // w1 and w2 are finished; their hosts stay listed until they are parked.
      expect(await inspector.dueHostCount('pod-a')).toBe(3);
      expect(await inspector.domainsWithWork('pod-a')).toBe(1);
      expect(await inspector.domainsWithWork('pod-a', 1)).toBe(1);
      expect(await inspector.settled()).toBe(false);
      await frontier.complete(byDomain.get('w3.example')!);
      expect(await inspector.domainsWithWork('pod-a')).toBe(0);
      expect(await inspector.settled()).toBe(true);
    });
  });
}
