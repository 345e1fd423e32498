/**
 * Pages of dead letters (`GET /v1/dead-letters`), through the frontier's reader, each a bounded
 * number of Redis commands: of one domain (newest first), or across every domain of the
 * dead-letter domains index (most dead letters first), with cursors that stay stable while
 * new letters arrive.
 */
import type { DeadLetter, FrontierInspector } from '@shardline/frontier';
import {
  decodeDeadLetterCursor,
  decodeListCursor,
  encodeDeadLetterCursor,
  encodeListCursor,
} from './cursor.js';

/** The frontier reads behind the dead-letter pages. */
export type DeadLetterSource = Pick<
  FrontierInspector,
  | 'deadLetters'
  | 'deadLettersKept'
  | 'deadLettersHeld'
  | 'deadLetterDomains'
  | 'deadLetterDomainCount'
>;

/** A page of one domain's dead letters, newest first; the caller checked that the domain exists. */
export async function domainDeadLetterPage(
  frontier: DeadLetterSource,
  domain: string,
  limit: number,
  cursorText: string | undefined,
) {
  const length = await frontier.deadLettersKept(domain);
  // Offsets in the cursor count from the head as it was at the first page; letters
  // pushed since then moved older ones down by the growth of the list.
  const start =
    cursorText === undefined
      ? { key: domain, offset: 0, length }
      : decodeListCursor(cursorText, domain);
  const offset = start.offset + Math.max(0, length - start.length);
  const items: DeadLetter[] = await frontier.deadLetters(domain, { offset, limit });
  const nextCursor =
    items.length === limit && offset + items.length < length
      ? encodeListCursor({ ...start, offset: start.offset + items.length })
      : null;
  return { domain, total: length, domains: 1, items, nextCursor };
}

/**
 * Dead letters across domains, walking the dead-letter domains index from the most dead
 * letters down: bounded by `limit` letters and at most `limit + 2` domains read (a
 * ZSCORE when resuming, one ZREVRANGEBYSCORE, then an LLEN and an LRANGE per domain
 * visited). A cursor taken inside a domain continues in that domain even if its count (its
 * place in the index) changed since, then after its old place. A domain whose list turns out
 * empty (its letters requeued since) is passed over; the page may then be short while
 * `nextCursor` still continues.
 */
export async function allDeadLetterPage(
  frontier: DeadLetterSource,
  limit: number,
  cursorText: string | undefined,
) {
  const cursor = cursorText === undefined ? undefined : decodeDeadLetterCursor(cursorText);
  const resumed = cursor !== undefined && cursor.domain !== '' ? cursor : undefined;
  // Skip the resumed domain in the index only if it is still where the cursor saw it:
  // a domain whose count changed since left that run of equal scores.
  const stillThere =
    resumed !== undefined && (await frontier.deadLettersHeld(resumed.domain)) === resumed.score;
  const after = (cursor?.skip ?? 0) + (stillThere ? 1 : 0);
  const [rows, domains] = await Promise.all([
    frontier.deadLetterDomains({
      ...(cursor === undefined ? {} : { maxCount: cursor.score }),
      offset: after,
      limit: limit + 1,
    }),
    frontier.deadLetterDomainCount(),
  ]);
  // Domains to visit with their keyset position (score, domains of that score before it).
  const visits: { domain: string; score: number; skip: number }[] = [];
  if (resumed) visits.push({ domain: resumed.domain, score: resumed.score, skip: resumed.skip });
  let runScore = cursor?.score;
  let run = after;
  for (const { domain, count: score } of rows) {
    if (score !== runScore) {
      runScore = score;
      run = 0;
    }
    // The resumed domain may also be listed further on if its count dropped.
    if (domain !== resumed?.domain) visits.push({ domain, score, skip: run });
    run++;
  }
  const items: DeadLetter[] = [];
  let nextCursor: string | null = null;
  for (let v = 0; v < visits.length; v++) {
    const at = visits[v]!;
    if (items.length === limit) {
      // Start of the next domain: '' (no domain) so that it is read from its head.
      nextCursor = encodeDeadLetterCursor({ ...at, domain: '', offset: 0, length: 0 });
      break;
    }
    const length = await frontier.deadLettersKept(at.domain);
    // Letters pushed since the cursor's first page moved older ones down by the growth.
    const base = v === 0 && resumed ? resumed : { offset: 0, length };
    const offset = base.offset + Math.max(0, length - base.length);
    const want = limit - items.length;
    const got =
      offset < length ? await frontier.deadLetters(at.domain, { offset, limit: want }) : [];
    items.push(...got);
    if (got.length === want && offset + got.length < length) {
      nextCursor = encodeDeadLetterCursor({
        ...at,
        offset: base.offset + got.length,
        length: base.length,
      });
      break;
    }
  }
  const last = visits[visits.length - 1];
  if (nextCursor === null && last && rows.length === limit + 1) {
    // Every domain read, more may follow: continue after the last one.
    nextCursor = encodeDeadLetterCursor({
      ...last,
      domain: '',
      skip: last.skip + 1,
      offset: 0,
      length: 0,
    });
  }
  return { domain: null, total: null, domains, items, nextCursor };
}
