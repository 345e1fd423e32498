/**
 * What a page handler sees: the {@link Page} (the fetched response, decoded text and a cheerio
 * document on demand) and the {@link HandlerContext} (push items, enqueue URLs, skip the
 * default link extraction, log). A handler is `async (page, ctx) => void`: a module's default
 * export (`--handler FILE`) or the pod option `pageHandler`.
 */
import type { CheerioAPI } from 'cheerio';
import { load } from 'cheerio';
import type { Logger } from 'pino';
import { decodeBody } from '../content.js';
import type { FetchOutcome } from '../fetch-types.js';
import { tagsOf } from '../tags.js';

/** A page handler. */
export type PageHandler = (page: Page, ctx: HandlerContext) => Promise<void> | void;

/** Options of {@link HandlerContext.enqueue}. */
export interface EnqueueOptions {
  /** Frontier priority (higher first). @default 0 */
  priority?: number;
  /** Tags the enqueued URLs carry (their pages' `page.tags`). @default the page's tags */
  tags?: readonly string[];
  /**
   * Fetch the URLs again this long after each fetch (ms; at most a year), beating the crawl's
   * `--refetch-after`. A bad value rejects the URLs (`SHARDLINE_ERR_FRONTIER_REFETCH`).
   * @default the crawl's
   */
  refetchAfterMs?: number;
}

/** What a handler may do besides reading the page. */
export interface HandlerContext {
  /** Appends an item (a JSON-serialisable object), stamped with the page's URL, the pod and the time. */
  push(item: Record<string, unknown>): void;
  /** Adds URLs (relative ones resolved against the page) through scope, dedup and robots. */
  enqueue(urls: string | readonly string[], options?: EnqueueOptions): void;
  /** Turns off the default link extraction for this page. */
  skipLinks(): void;
  /** The pod's logger, bound to the page's URL. */
  log: Logger;
}

/** One fetched page, as a handler reads it. */
export class Page {
  readonly url: string;
  readonly status: number;
  /** Response headers, names lower-cased (the decoded view: no Content-Encoding once inflated). */
  readonly headers: Readonly<Record<string, string>>;
  /** The body bytes kept (decoded, at most the pod's `maxBodyBytes`); empty when none. */
  readonly body: Buffer;
  readonly depth: number;
  /** The seed's tags this URL carries (empty when none). */
  readonly tags: readonly string[];
  /** Media type without parameters (`text/html`), when the response named one. */
  readonly contentType: string | undefined;
  readonly #charset: string;
  #text: string | undefined;
  #document: CheerioAPI | undefined;

  constructor(outcome: FetchOutcome, depth: number, meta: string) {
    this.url = outcome.url;
    this.status = outcome.status;
    this.headers = outcome.headers;
    this.body = outcome.body ?? Buffer.alloc(0);
    this.depth = depth;
    this.tags = tagsOf(meta);
    this.contentType = outcome.contentType;
    this.#charset = outcome.charset ?? 'utf-8';
  }

  /** The body as text, decoded with the page's charset (BOM, header, `<meta>`, else UTF-8). */
  text(): string {
    this.#text ??= decodeBody(this.body, this.#charset);
    return this.#text;
  }

  /** The parsed document (cheerio, as Crawlee's `$`), built on first use. */
  get $(): CheerioAPI {
    this.#document ??= load(this.text(), { baseURI: this.url });
    return this.#document;
  }
}
