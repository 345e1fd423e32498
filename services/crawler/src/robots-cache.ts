/**
 * The robots.txt shared cache on Redis: one string key per origin holding the loader's JSON
 * record, expiring with it (`SET … PX`). A pod that takes a domain over after a handoff finds
 * the host's robots.txt warm instead of fetching it again.
 */
import { DEFAULT_PREFIX } from '@shardline/frontier';
import type { Cluster, Redis } from 'ioredis';
import { check, invalidOption } from './errors.js';
import type { RobotsCacheRecord, RobotsSharedCache } from './robots-cache-record.js';

/** Options of {@link RedisRobotsCache}. */
export interface RedisRobotsCacheOptions {
  /** A connected ioredis client (plain or Cluster). */
  redis: Redis | Cluster;
  /** Key prefix; the key of an origin is `<prefix>:robots:<origin>`. @default 'sl' */
  prefix?: string;
  /** Largest record stored, in bytes of JSON (bigger ones are not shared). @default 1048576 */
  maxRecordBytes?: number;
}

/** {@link RobotsSharedCache} on Redis. Errors propagate; the loader treats them as misses. */
export class RedisRobotsCache implements RobotsSharedCache {
  readonly #redis: Redis | Cluster;
  readonly #prefix: string;
  readonly #maxRecordBytes: number;

  constructor(options: RedisRobotsCacheOptions) {
    const redis = options?.redis as unknown;
    if (typeof redis !== 'object' || redis === null || typeof (redis as Redis).get !== 'function') {
      throw invalidOption('RedisRobotsCacheOptions', 'redis', redis, 'an ioredis client');
    }
    this.#redis = options.redis;
    this.#prefix = check.string(
      'RedisRobotsCacheOptions',
      'prefix',
      options.prefix,
      DEFAULT_PREFIX,
    );
    this.#maxRecordBytes = check.int(
      'RedisRobotsCacheOptions',
      'maxRecordBytes',
      options.maxRecordBytes,
      1_048_576,
      1,
    );
  }

  /** The key of one origin. */
  key(origin: string): string {
    return `${this.#prefix}:robots:${origin}`;
  }

  async get(origin: string): Promise<RobotsCacheRecord | undefined> {
    const text = await this.#redis.get(this.key(origin));
    return text === null ? undefined : (JSON.parse(text) as RobotsCacheRecord);
  }

  async set(origin: string, record: RobotsCacheRecord, ttlMs: number): Promise<void> {
    const text = JSON.stringify(record);
    if (Buffer.byteLength(text) > this.#maxRecordBytes) return;
    await this.#redis.set(this.key(origin), text, 'PX', Math.max(1, Math.floor(ttlMs)));
  }
}
