/**
 * Pages of the crawl's domain indexes (by depth, fetches, errors, dead letters): one ZSET
 * range each, no scan. FrontierInspector's listing methods read through these.
 */
import type { Cluster, Redis } from 'ioredis';
import { checkPage } from './checks.js';
import { FrontierArgumentError } from './errors.js';
import type { FrontierKeys } from './keys.js';
import type { DeadLetterDomainPage, DomainCount, DomainPage } from './read-types.js';

/** Domains by `page.sort` (see FrontierInspector.domains), offset- or keyset-paged. */
export async function readDomainPage(
  redis: Redis | Cluster,
  keys: FrontierKeys,
  page: DomainPage,
): Promise<DomainCount[]> {
  const sort = page.sort ?? 'depth';
  if (sort !== 'depth' && sort !== 'fetched' && sort !== 'errors') {
    throw new FrontierArgumentError('sort', sort, "'depth', 'fetched' or 'errors'");
  }
  const { offset, limit } = checkPage(page);
  const key = keys.domainIndex(sort);
  if (page.maxCount === undefined) {
    return pairs(
      (await redis.zrevrange(key, offset, offset + limit - 1, 'WITHSCORES')) as string[],
    );
  }
  const max = scoreBound(page.maxCount);
  return pairs(
    (await redis.zrevrangebyscore(
      key,
      max,
      '-inf',
      'WITHSCORES',
      'LIMIT',
      offset,
      limit,
    )) as string[],
  );
}

/** Up to `count` distinct domains of the depth index at random (one ZRANDMEMBER). */
export async function sampleDomainIndex(
  redis: Redis | Cluster,
  keys: FrontierKeys,
  count: number,
): Promise<DomainCount[]> {
  if (!Number.isSafeInteger(count) || count < 1) {
    throw new FrontierArgumentError('count', count, 'a positive integer');
  }
  return pairs((await redis.zrandmember(keys.domains(), count, 'WITHSCORES')) as string[]);
}

/** Domains holding dead letters, most first (see FrontierInspector.deadLetterDomains). */
export async function readDeadLetterDomainPage(
  redis: Redis | Cluster,
  keys: FrontierKeys,
  page: DeadLetterDomainPage,
): Promise<DomainCount[]> {
  const { offset, limit } = checkPage(page);
  const max = page.maxCount === undefined ? '+inf' : scoreBound(page.maxCount);
  const flat = (await redis.zrevrangebyscore(
    keys.deadLetterDomains(),
    max,
    '(0',
    'WITHSCORES',
    'LIMIT',
    offset,
    limit,
  )) as string[];
  return pairs(flat);
}

function pairs(flat: string[]): DomainCount[] {
  const out: DomainCount[] = [];
  for (let i = 0; i < flat.length; i += 2) {
    out.push({ domain: flat[i]!, count: Number(flat[i + 1]) });
  }
  return out;
}

/** `maxCount` as a ZSET score bound. */
function scoreBound(value: unknown): string {
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw new FrontierArgumentError('maxCount', value, 'a number');
  }
  if (value === Number.POSITIVE_INFINITY) return '+inf';
  if (value === Number.NEGATIVE_INFINITY) return '-inf';
  return String(value);
}
