import { domainKey, UrlError } from '@shardline/url';

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
