/**
 * Items that page handlers push: each stamped with the page's URL, the pod and the time, then
 * written like results — to a capped Redis stream read with consumer groups, and optionally a
 * JSONL file (`ResultSink` does both).
 */
import type { Cluster, Redis } from 'ioredis';
import { type JsonlOptions, ResultSink } from '../results.js';

/** Largest item (its JSON) a handler may push. */
export const MAX_ITEM_BYTES = 1 << 20;
/** Most items one page may push. */
export const MAX_ITEMS_PER_PAGE = 10_000;

/** One stored item: stream fields `url`, `pod`, `atMs`, `item` (JSON); the same as a JSONL line. */
export interface ItemRecord {
  url: string;
  pod: string;
  /** When the handler pushed it (epoch ms). */
  atMs: number;
  item: Record<string, unknown>;
}

/** Stream entry fields of an item record. */
export function encodeItem(record: ItemRecord): string[] {
  return [
    'url',
    record.url,
    'pod',
    record.pod,
    'atMs',
    String(record.atMs),
    'item',
    JSON.stringify(record.item),
  ];
}

/** The inverse of {@link encodeItem}, for stream consumers. */
export function decodeItem(fields: readonly string[]): ItemRecord {
  const map = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) map.set(fields[i]!, fields[i + 1]!);
  return {
    url: map.get('url') ?? '',
    pod: map.get('pod') ?? '',
    atMs: Number(map.get('atMs')),
    item: JSON.parse(map.get('item') ?? '{}') as Record<string, unknown>,
  };
}

/** The pod's item sink. */
export function itemSink(options: {
  redis: Redis | Cluster;
  streamKey: string;
  maxLen: number;
  jsonl: JsonlOptions;
}): ResultSink<ItemRecord> {
  return new ResultSink<ItemRecord>({
    redis: options.redis,
    streamKey: options.streamKey,
    maxLen: options.maxLen,
    encode: encodeItem,
    ...options.jsonl,
  });
}

/** Checks a pushed item: a plain object whose JSON fits {@link MAX_ITEM_BYTES}. */
export function checkItem(item: unknown): Record<string, unknown> {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    throw new TypeError(`ctx.push: an item must be a plain object; got ${describe(item)}`);
  }
  const json = JSON.stringify(item);
  if (Buffer.byteLength(json) > MAX_ITEM_BYTES) {
    throw new TypeError(`ctx.push: an item's JSON must be at most ${MAX_ITEM_BYTES} bytes`);
  }
  return JSON.parse(json) as Record<string, unknown>;
}

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}
