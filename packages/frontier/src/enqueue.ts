/**
 * Enqueue: canonicalise and check each item in TypeScript, then one enqueue-3.lua call
 * per domain chunk (dedup against the seen-set, caps, push) with the owners' due-index
 * entries pinned in the same round trip, then the new host scores and counters.
 */
import { type Canonicalizer, createCanonicalizer } from '@shardline/url';
import { asArray } from './checks.js';
import { dueMember, packEntry } from './codec.js';
import type { FrontierContext } from './context.js';
import { Counters } from './counters.js';
import { type DueIndex, IndexBatch } from './due-index.js';
import {
  FrontierArgumentError,
  FrontierCapCode,
  FrontierRejectCode,
  FrontierReplyError,
  RedisOomError,
} from './errors.js';
import type { Arg, ScriptCall } from './executor.js';
import { fingerprint } from './fingerprint.js';
import { MAX_REFETCH_MS } from './options.js';
import { SCRIPT_COMMANDS as C } from './scripts.js';
import type { EnqueueItem, EnqueueReport, EnqueueResult } from './types.js';

/** An item that passed the checks, ready for the script. */
interface Prepared {
  index: number;
  host: string;
  fp: string;
  level: number;
  entry: string;
}

type Rejection = { code: string; reason: string; url?: string; domain?: string; host?: string };
type Accepted = { url: string; domain: string; host: string; level: number; entry: string };

/** How old the depth index's size may be when deciding whether to pack (ms). */
const LISTED_REFRESH_MS = 5000;

/** Per-item status letters of enqueue-3.lua's reply. */
const STATUS = {
  queued: 'q',
  duplicate: 'd',
  queueCap: 'c',
  acceptCap: 'a',
  hostAcceptCap: 'h',
} as const;

export class Enqueuer {
  readonly #ctx: FrontierContext;
  readonly #index: DueIndex;
  readonly #canonicalizer: Canonicalizer;
  // The depth index's size as last read, for `packAfterDomains`.
  #listed = { count: 0, readAtMs: Number.NEGATIVE_INFINITY };

  constructor(ctx: FrontierContext, index: DueIndex) {
    this.#ctx = ctx;
    this.#index = index;
    this.#canonicalizer = createCanonicalizer(ctx.options.canonicalize);
  }

  /** See `RedisFrontier.enqueue`. */
  async enqueue(items: readonly EnqueueItem[]): Promise<EnqueueReport> {
    if (!Array.isArray(items)) throw new FrontierArgumentError('items', items, 'an array');
    const { keys, options: o } = this.#ctx;
    const results: EnqueueResult[] = new Array(items.length);
    const byDomain = new Map<string, Prepared[]>();
    let rejected = 0;
    const counters = new Counters(keys);

    for (let i = 0; i < items.length; i++) {
      const outcome = this.#prepare(items[i]);
      if ('code' in outcome) {
        results[i] = { status: 'rejected', ...outcome };
        rejected++;
        continue;
      }
      const { url, domain, host, level, entry } = outcome;
      results[i] = { status: 'queued', url, domain, host };
      let list = byDomain.get(domain);
      if (!list) {
        list = [];
        byDomain.set(domain, list);
      }
      list.push({ index: i, host, fp: fingerprint(url), level, entry });
    }
    counters.add('rejected', rejected);

    const seen = byDomain.size > 0 ? await this.#ctx.seenLayout() : undefined;
    const packing = byDomain.size > 0 && (await this.#packing());
    const pins = new IndexBatch();
    const owners = new Map<string, string>();
    const calls: ScriptCall[] = [];
    const callDomains: string[] = [];
    const callItems: Prepared[][] = [];
    for (const [domain, list] of byDomain) {
      const owner = this.#ctx.ownerOf(domain);
      owners.set(domain, owner);
      const hosts = new Set(list.map((p) => p.host));
      for (const host of hosts) pins.pin(owner, dueMember(domain, host), false);
      for (let start = 0; start < list.length; start += o.enqueueChunk) {
        const chunk = list.slice(start, start + o.enqueueChunk);
        const args: Arg[] = [
          keys.domain(domain),
          keys.hosts(domain),
          keys.root(domain),
          o.maxQueuedPerDomain,
          o.defaultConcurrency,
          o.maxAcceptedPerDomain,
          o.maxAcceptedPerHost,
          o.archiveIdleDomains ? keys.archive(domain) : '',
          seen!.bucketLoad,
          seen!.inlineMax,
          packing ? 1 : 0,
        ];
        for (const p of chunk) args.push(p.host, p.fp, p.level, p.entry);
        calls.push({ command: C.enqueue, args });
        callDomains.push(domain);
        callItems.push(chunk);
      }
    }

    if (byDomain.size > 0) await this.#ctx.crawl.touch(byDomain.keys());
    const replies = await this.#ctx.exec.scriptsSettled(calls, this.#index.calls(pins));
    // Calls Redis refused for want of memory took no effect (enqueue-3 is refused whole):
    // their items are reported as pending after the others are counted and indexed.
    const pending: number[] = [];
    let oom: RedisOomError | undefined;
    const updates = new IndexBatch();
    let queued = 0;
    let duplicates = 0;
    let overCap = 0;
    const woken = new Set<string>();
    replies.forEach((reply, c) => {
      if (reply instanceof RedisOomError) {
        oom ??= reply;
        for (const p of callItems[c]!) pending.push(p.index);
        return;
      }
      if (reply instanceof Error) throw reply;
      const r = asArray(reply, 'enqueue');
      const statuses = String(r[0]);
      const domain = callDomains[c]!;
      const chunk = callItems[c]!;
      let domainQueued = 0;
      for (let k = 0; k < chunk.length; k++) {
        const result = results[chunk[k]!.index]!;
        const s = statuses[k];
        if (s === STATUS.queued) {
          queued++;
          domainQueued++;
        } else if (s === STATUS.duplicate) {
          result.status = 'duplicate';
          duplicates++;
        } else if (s === STATUS.queueCap) {
          result.status = 'over-cap';
          overCap++;
        } else if (s === STATUS.acceptCap) {
          result.status = 'over-cap';
          result.code = FrontierCapCode.ACCEPT_CAP;
          overCap++;
        } else if (s === STATUS.hostAcceptCap) {
          result.status = 'over-cap';
          result.code = FrontierCapCode.HOST_ACCEPT_CAP;
          overCap++;
        } else {
          throw new FrontierReplyError('enqueue', reply);
        }
      }
      const revived = String(r[2]);
      if (revived === 'packed' || revived === 'repacked') {
        // Out of the domain indexes, as an archived domain (counted there once).
        counters.add('queued', domainQueued);
        if (revived === 'packed') counters.archived(domain);
      } else {
        counters.queued(domain, domainQueued);
        if (revived !== '') counters.revived(domain, revived);
      }
      const owner = owners.get(domain)!;
      for (let j = 3; j + 2 < r.length; j += 3) {
        const score = String(r[j + 2]);
        updates.add(owner, dueMember(domain, String(r[j])), String(r[j + 1]), score);
        if (score !== 'park') woken.add(owner);
      }
    });
    counters.add('enqueued', queued);
    counters.add('duplicates', duplicates);
    counters.add('overCap', overCap);
    await this.#index.apply(updates, counters);
    const report = { results, queued, duplicates, rejected, overCap, wokenPods: [...woken] };
    if (oom) throw new RedisOomError(oom.cause, { report, pending: pending.sort((a, b) => a - b) });
    return report;
  }

  /**
   * Whether new small domains are packed now (`packNewDomains`, `packAfterDomains`: the depth
   * index's size, read again while below it or once older than {@link LISTED_REFRESH_MS}).
   */
  async #packing(): Promise<boolean> {
    const o = this.#ctx.options;
    if (!o.archiveIdleDomains || !o.packNewDomains) return false;
    if (o.packAfterDomains === 0) return true;
    const now = performance.now();
    // Below the threshold it is read on every call (one ZCARD): a wide seed crosses it fast.
    const stale = now - this.#listed.readAtMs > LISTED_REFRESH_MS;
    if (stale || this.#listed.count < o.packAfterDomains) {
      const count = await this.#ctx.redis.zcard(this.#ctx.keys.domains());
      this.#listed = { count, readAtMs: now };
    }
    return this.#listed.count >= o.packAfterDomains;
  }

  #prepare(item: EnqueueItem | undefined): Rejection | Accepted {
    const o = this.#ctx.options;
    const spec = typeof item === 'string' ? { url: item } : item;
    if (typeof spec !== 'object' || spec === null || typeof spec.url !== 'string') {
      return { code: FrontierRejectCode.INPUT, reason: 'item is not a URL string or { url }' };
    }
    const canonical = this.#canonicalizer.tryCanonicalize(spec.url, spec.base);
    if (!canonical.ok) return { code: canonical.error.code, reason: canonical.error.reason };
    const { url, domain, host } = canonical.value;
    const where = { url, domain, host };
    const depth = spec.depth ?? 0;
    if (!Number.isSafeInteger(depth) || depth < 0 || depth > o.maxDepth) {
      return { code: FrontierRejectCode.DEPTH, reason: `depth must be 0..${o.maxDepth}`, ...where };
    }
    const priority = spec.priority ?? 0;
    if (!Number.isSafeInteger(priority) || Math.abs(priority) > o.maxPriority) {
      return {
        code: FrontierRejectCode.PRIORITY,
        reason: `priority must be an integer within ±${o.maxPriority}`,
        ...where,
      };
    }
    const meta = spec.meta ?? '';
    if (typeof meta !== 'string' || meta.length > o.maxMetaChars) {
      return {
        code: FrontierRejectCode.META,
        reason: `meta must be a string of ≤ ${o.maxMetaChars} chars`,
        ...where,
      };
    }
    const refetchAfterMs = spec.refetchAfterMs;
    if (
      refetchAfterMs !== undefined &&
      (!Number.isSafeInteger(refetchAfterMs) ||
        refetchAfterMs < 1 ||
        refetchAfterMs > MAX_REFETCH_MS)
    ) {
      return {
        code: FrontierRejectCode.REFETCH,
        reason: `refetchAfterMs must be an integer of ms in 1..${MAX_REFETCH_MS}`,
        ...where,
      };
    }
    const recrawl = refetchAfterMs === undefined ? undefined : { refetchAfterMs };
    return { url, domain, host, level: priority, entry: packEntry(depth, 0, meta, url, recrawl) };
  }
}
