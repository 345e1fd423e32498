/**
 * The crawl- and cluster-level methods: ListNodes (every live node's published address),
 * ListCrawls, DeleteCrawl, SetActive/GetActive, SetLogLevel, and the URL-level method that
 * has no meaning on this frontier (PurgeURLs), an explicit UNIMPLEMENTED naming why.
 */
import type { NodeContext } from './context.js';
import { CrawlFrontiers } from './crawl-frontiers.js';
import { unimplemented } from './errors.js';
import type { DeleteCrawlMessage, LogLevelParams, StringList } from './proto.js';

/** The membership setting under which a node publishes its gRPC address. */
export const ADDRESS_SETTING = 'urlfrontier';

export async function listNodes(ctx: NodeContext): Promise<StringList> {
  const records = await ctx.reader.memberInfo();
  const values = records
    .filter((r) => r.alive && typeof r.settings[ADDRESS_SETTING] === 'string')
    .map((r) => String(r.settings[ADDRESS_SETTING]));
  return { values };
}

/** Every crawl of the frontier (they are cluster-wide: `local` changes nothing). */
export async function listCrawls(ctx: NodeContext): Promise<StringList> {
  return { values: (await ctx.crawls.ids()).map((id) => CrawlFrontiers.toUrlFrontier(id)) };
}

/**
 * Deletes a crawl everywhere (its keys are cluster-wide: `local` changes nothing); returns the
 * URLs it still held, queued or in flight.
 */
export async function deleteCrawl(
  ctx: NodeContext,
  p: DeleteCrawlMessage,
): Promise<{ value: number }> {
  const value = await ctx.crawls.delete(p.value, 'DeleteCrawl');
  ctx.log.info({ crawlId: p.value, urls: value }, 'DeleteCrawl');
  return { value };
}

export async function setActive(
  ctx: NodeContext,
  p: { state: boolean; local: boolean },
): Promise<object> {
  await ctx.active.set(p.state, p.local);
  ctx.log.info({ active: p.state, local: p.local }, 'SetActive');
  return {};
}

export async function getActive(
  ctx: NodeContext,
  p: { local: boolean },
): Promise<{ state: boolean }> {
  return { state: await ctx.active.get(p.local) };
}

/** URLFrontier levels → pino levels. */
const LEVELS = {
  TRACE: 'trace',
  DEBUG: 'debug',
  INFO: 'info',
  WARN: 'warn',
  ERROR: 'error',
} as const;

/** Sets this node's log level (there is one logger per node; `package` is not used). */
export async function setLogLevel(ctx: NodeContext, p: LogLevelParams): Promise<object> {
  ctx.log.level = LEVELS[p.level] ?? 'info';
  return {};
}

export async function purgeUrls(): Promise<never> {
  throw unimplemented(
    'PurgeURLs',
    'the frontier keeps no per-URL dates to purge by; a crawl’s URLs are fetched, ' +
      'dead-lettered or still queued',
  );
}
