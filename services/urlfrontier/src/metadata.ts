/**
 * URLInfo metadata (string → list of strings) kept with a URL in the frontier's per-URL `meta`
 * text, as compact JSON, and given back with the URL by GetURLs.
 */
import type { StringList } from './proto.js';

/** The metadata as stored text; '' for none. */
export function encodeMetadata(metadata: Record<string, StringList> | undefined): string {
  const entries = Object.entries(metadata ?? {});
  if (entries.length === 0) return '';
  return JSON.stringify(Object.fromEntries(entries.map(([k, v]) => [k, v?.values ?? []])));
}

/** Stored text back to metadata; text that is not ours (seeded by `shardline seed`) is kept under `meta`. */
export function decodeMetadata(meta: string): Record<string, StringList> {
  if (meta === '') return {};
  try {
    const parsed = JSON.parse(meta) as unknown;
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const out: Record<string, StringList> = {};
      for (const [k, v] of Object.entries(parsed)) {
        out[k] = { values: Array.isArray(v) ? v.map(String) : [String(v)] };
      }
      return out;
    }
  } catch {
    // Plain text meta (not written by this service): handed out as is, below.
  }
  return { meta: { values: [meta] } };
}
