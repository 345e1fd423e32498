import { domainKey, type HostKey, hostKey, UrlError } from '@shardline/url';
import { InvalidArgumentError } from 'commander';
import { usageError } from '../errors.js';

/** The domain key of one input line, or why it has none. */
export type DomainResult = { ok: true; domain: string } | { ok: false; reason: string };

/** Keys a line holding a URL (`https://…`) or a bare host by its registrable domain. */
export function domainOfLine(text: string): DomainResult {
  try {
    return { ok: true, domain: domainKey(text) };
  } catch (error) {
    if (error instanceof UrlError) return { ok: false, reason: error.reason };
    throw error;
  }
}

/** Cuts a bad input line for an error message so a huge line cannot flood the terminal. */
export function clip(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text);
}

/**
 * Commander parser of a domain argument: the frontier's domain key of a host or URL, so
 * `LOOP.TEST`, `loop.test.`, `www.loop.test` and `https://loop.test/x` all name `loop.test`.
 */
export function domainArgument(value: string): string {
  const result = domainOfLine(value.trim());
  if (!result.ok) throw new InvalidArgumentError(`not a domain or URL (${result.reason}).`);
  return result.domain;
}

/** {@link domainArgument} for a value checked after parsing: a bad one is a usage error. */
export function domainOrUsage(value: string): string {
  const result = domainOfLine(value.trim());
  if (!result.ok) throw usageError(`not a domain or URL (${result.reason}): ${clip(value)}`);
  return result.domain;
}

/**
 * A host argument (a bare host or a URL) as the frontier keys it, with its domain: `WWW.X.COM`
 * and `https://www.x.com/a` name the host `www.x.com` the crawler's state is kept under. A bad
 * one is a usage error.
 */
export function hostOrUsage(value: string): HostKey {
  try {
    return hostKey(value.trim());
  } catch (error) {
    if (!(error instanceof UrlError)) throw error;
    throw usageError(`not a host or URL (${error.reason}): ${clip(value)}`);
  }
}
