import { DEFAULT_PREFIX, isCrawlId, isKeyPrefix, KEY_PREFIX_RULE } from '@shardline/frontier';
import { InvalidArgumentError } from 'commander';

/** Commander parser for an integer option within [min, max]. */
export function integerIn(min: number, max: number): (value: string) => number {
  return (value: string) => {
    const n = /^\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`expected an integer from ${min} to ${max}.`);
    }
    return n;
  };
}

/** Commander parser for a comma-separated list of distinct, non-empty pod ids. */
export function podList(value: string): string[] {
  const ids = value.split(',').map((id) => id.trim());
  if (ids.some((id) => id.length === 0)) {
    throw new InvalidArgumentError('expected comma-separated pod ids without empty entries.');
  }
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) throw new InvalidArgumentError(`pod id "${id}" is listed twice.`);
    seen.add(id);
  }
  return ids;
}

/** Commander parser for `a=2,b=0.5`: pod id → weight (a finite number > 0). */
export function weightList(value: string): Map<string, number> {
  const weights = new Map<string, number>();
  for (const part of value.split(',')) {
    const eq = part.indexOf('=');
    const id = part.slice(0, eq).trim();
    const text = part.slice(eq + 1).trim();
    const weight = Number(text);
    if (eq <= 0 || text === '' || !Number.isFinite(weight) || weight <= 0) {
      throw new InvalidArgumentError(
        `expected pod=weight pairs with weights > 0, like a=2,b=0.5; got "${part.trim()}".`,
      );
    }
    if (weights.has(id)) throw new InvalidArgumentError(`pod "${id}" has two weights.`);
    weights.set(id, weight);
  }
  return weights;
}

/** What a crawl id may be, for people. */
export const CRAWL_ID_HINT =
  'use 1-64 characters of a-z 0-9 . _ - starting with a letter or digit, e.g. news-2026';

/** Commander parser for `--crawl-id`. */
export function crawlIdOption(value: string): string {
  if (!isCrawlId(value)) throw new InvalidArgumentError(`not a crawl id: ${CRAWL_ID_HINT}.`);
  return value;
}

/** The help of `--prefix`, on every command that takes it. */
export const KEY_PREFIX_HELP = `frontier key prefix (env KEY_PREFIX, default ${DEFAULT_PREFIX})`;

/** Commander parser for `--prefix`: the frontier refuses other prefixes when it is built. */
export function keyPrefixOption(value: string): string {
  if (!isKeyPrefix(value))
    throw new InvalidArgumentError(`not a key prefix: use ${KEY_PREFIX_RULE}.`);
  return value;
}
