/**
 * The `shardline dead-letters` command line a summary or a domain page points to: the flags
 * that find the same Redis and keys, each only when it differs from the default (the
 * environment the user runs with finds the rest).
 */
import { DEFAULT_CRAWL, DEFAULT_PREFIX } from '@shardline/frontier';

/** What locates the dead letters; every field optional. */
export interface DeadLettersWhere {
  domain?: string;
  /** `--data-dir` of an embedded Redis, when not the default. */
  dataDir?: string;
  /** A Redis URL given by flag, shown as its label (password masked). */
  redisLabel?: string;
  redisCluster?: string;
  prefix?: string;
  crawlId?: string;
}

export function deadLettersCommand(where: DeadLettersWhere): string {
  const parts = ['shardline dead-letters'];
  if (where.domain !== undefined) parts.push(where.domain);
  if (where.dataDir !== undefined) parts.push(`--data-dir ${where.dataDir}`);
  if (where.redisLabel !== undefined) parts.push(`--redis ${where.redisLabel}`);
  if (where.redisCluster !== undefined) parts.push(`--redis-cluster ${where.redisCluster}`);
  if (where.prefix !== undefined && where.prefix !== DEFAULT_PREFIX)
    parts.push(`--prefix ${where.prefix}`);
  if (where.crawlId !== undefined && where.crawlId !== DEFAULT_CRAWL) {
    parts.push(`--crawl-id ${where.crawlId}`);
  }
  return parts.join(' ');
}
