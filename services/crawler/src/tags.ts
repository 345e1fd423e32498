/**
 * Seed tags: names a seed line (`tag=news`) or a page handler (`ctx.enqueue(url, { tags })`)
 * attaches to URLs, carried to the pod in the frontier's `meta` field as `tags=a,b` and read
 * back as `page.tags`. One definition for the CLI and the pod, so both accept the same names.
 */

/** Prefix of the `meta` field that carries tags. */
export const TAGS_META_PREFIX = 'tags=';

/** A tag: 1-64 letters, digits, `.`, `_`, `-` or `:` (no `,`, which separates them in meta). */
const TAG = /^[A-Za-z0-9._:-]{1,64}$/;

/** What a tag may be, in words, for error messages. */
export const TAG_RULE = '1-64 of [A-Za-z0-9._:-]';

/** True when `tag` is a valid tag name. */
export function isTag(tag: unknown): boolean {
  return typeof tag === 'string' && TAG.test(tag);
}

/** The `meta` text for a set of tags (empty when there are none). */
export function tagsMeta(tags: readonly string[]): string {
  return tags.length === 0 ? '' : `${TAGS_META_PREFIX}${tags.join(',')}`;
}

/** The tags in a lease's meta (`tags=a,b`), or none. */
export function tagsOf(meta: string): string[] {
  if (!meta.startsWith(TAGS_META_PREFIX)) return [];
  return meta.slice(TAGS_META_PREFIX.length).split(',').filter(Boolean);
}
