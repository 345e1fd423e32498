/**
 * The pod's WARC archive: one `ThreadedWarcWriter` in the pod's WARC directory — the records
 * are built, gzipped and appended on the writer's own worker thread, off the pod's JavaScript
 * thread — opened (and this pod's unfinished files repaired) when the pod starts, closed (the
 * thread ended) when it stops. Pages are archived by
 * the pipeline's archive stage before their lease completes; robots.txt requests are archived
 * as they happen, and a stop waits for those writes.
 */
import type { DnsCache } from '@shardline/dns';
import {
  type RevisitOf,
  ThreadedWarcWriter,
  type ThreadedWarcWriterStats,
  type WarcLocation,
} from '@shardline/warc';
import type { Logger } from 'pino';
import type { FetchOutcome } from '../fetch-types.js';
import { exchangeOf } from './exchange.js';

/** Options of {@link PodArchive}. */
export interface PodArchiveOptions {
  dir: string;
  pod: string;
  maxFileBytes: number;
  /** Fields of every file's `warcinfo` record. */
  info: Record<string, string>;
  requestHeaders: Array<[string, string]>;
  /** Where the address a host resolved to comes from (`WARC-IP-Address`). */
  dns: Pick<DnsCache, 'resolve'>;
  logger: Logger;
  /** Heap limit of the writer's thread, MB. @default Node's default */
  threadHeapMb?: number;
}

/** Hosts whose address is remembered at once (then forgotten all together and resolved again). */
const MAX_REMEMBERED_HOSTS = 10_000;

/** Counters of the archive. */
export interface ArchiveStats extends Omit<ThreadedWarcWriterStats, 'repaired'> {
  dir: string;
  /** Files this pod repaired at start (a crash had left them open). */
  repairedFiles: number;
}

/** The pod's WARC output; see the file comment. */
export class PodArchive {
  readonly #o: PodArchiveOptions;
  #writer: ThreadedWarcWriter | undefined;
  readonly #background = new Set<Promise<unknown>>();
  // The address each host last resolved to, until the answer expires: resolving again for each
  // record (an async call through the DNS cache) was a tenth of the archive's CPU per page.
  readonly #addresses = new Map<string, { address: string; expiresAt: number }>();
  #backgroundErrors = 0;

  constructor(options: PodArchiveOptions) {
    this.#o = options;
  }

  /** Opens the writer: repairs and closes this pod's unfinished files first. */
  async start(): Promise<void> {
    if (this.#writer) return;
    const logger = this.#o.logger;
    this.#writer = await ThreadedWarcWriter.open({
      dir: this.#o.dir,
      pod: this.#o.pod,
      maxFileBytes: this.#o.maxFileBytes,
      info: this.#o.info,
      ...(this.#o.threadHeapMb === undefined ? {} : { threadHeapMb: this.#o.threadHeapMb }),
      // Counted in stats().warc.threadCrashes; the leases whose records it held fail (retried).
      onThreadExit: (error) =>
        logger.error({ err: error }, 'WARC writer thread died; the next write starts another'),
    });
    for (const report of this.#writer.stats().repaired) {
      this.#o.logger.warn(report, 'WARC file left open by a crash: repaired and closed');
    }
  }

  /**
   * Archives the fetch as a response + request pair (a 304: a revisit of `revisitOf`); resolves
   * with where the response record is, or `undefined` when there was no response to archive.
   * Rejects when the write failed.
   */
  async archive(
    outcome: FetchOutcome,
    extraRequestHeaders: Record<string, string> = {},
    revisitOf?: RevisitOf,
  ): Promise<WarcLocation | undefined> {
    const writer = this.#writer;
    if (!writer) throw new Error('PodArchive.archive before start()');
    const ip = await this.#addressOf(outcome.url);
    const exchange = exchangeOf(
      outcome,
      sentHeaders(this.#o.requestHeaders, extraRequestHeaders),
      ip,
      revisitOf,
    );
    if (!exchange) return undefined;
    return writer.write(exchange);
  }

  /** Archives a fetch no lease waits for (robots.txt); a failure is logged and counted. */
  archiveInBackground(outcome: FetchOutcome): void {
    if (!this.#writer) return;
    const write = this.archive(outcome).catch((error: unknown) => {
      this.#backgroundErrors += 1;
      this.#o.logger.error({ err: error, url: outcome.url }, 'WARC write failed');
    });
    this.#background.add(write);
    void write.finally(() => this.#background.delete(write));
  }

  /** Waits for background writes, then closes the current file. */
  async close(): Promise<void> {
    while (this.#background.size > 0) await Promise.allSettled([...this.#background]);
    await this.#writer?.close();
  }

  stats(): ArchiveStats {
    const { repaired, ...rest } = this.#writer?.stats() ?? {
      records: 0,
      bytes: 0,
      filesClosed: 0,
      errors: 0,
      repaired: [],
      threadCrashes: 0,
    };
    return {
      dir: this.#o.dir,
      ...rest,
      errors: rest.errors + this.#backgroundErrors,
      repairedFiles: repaired.length,
    };
  }

  async #addressOf(url: string): Promise<string | undefined> {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
    const known = this.#addresses.get(host);
    if (known && known.expiresAt > Date.now()) return known.address;
    try {
      const [first] = await this.#o.dns.resolve(host);
      if (first) {
        if (this.#addresses.size >= MAX_REMEMBERED_HOSTS) this.#addresses.clear();
        this.#addresses.set(host, { address: first.address, expiresAt: first.expiresAt });
      }
      return first?.address;
    } catch {
      // The fetch got an answer, so the name resolved; a refusal now leaves the field out.
      return undefined;
    }
  }
}

/**
 * The header fields as the fetcher sends them: its own, then the call's extra fields (a
 * conditional refetch's), which cannot replace one of its own (`user-agent`).
 */
function sentHeaders(
  own: Array<[string, string]>,
  extra: Record<string, string>,
): Array<[string, string]> {
  const names = new Set(own.map(([name]) => name));
  return [...own, ...Object.entries(extra).filter(([name]) => !names.has(name))];
}
