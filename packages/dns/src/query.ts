import type { RecordWithTtl } from 'node:dns';
import { Resolver } from 'node:dns/promises';
import { DnsError, DnsErrorCode } from './errors.js';

/** RFC 8305 §3: once A has answered, wait this long for AAAA before going without it. */
const RESOLUTION_DELAY_MS = 50;

/** What one resolution of a name produced: records of both families, or why there are none. */
export type QueryResult =
  | { ok: true; records: Array<RecordWithTtl & { family: 4 | 6 }> }
  | { ok: false; code: DnsErrorCode; dnsCode: string };

type Outcome = { records: RecordWithTtl[] } | { code: DnsErrorCode; dnsCode: string };

export interface QuerierOptions {
  servers: string[];
  timeoutMs: number;
  tries: number;
  ipv6: boolean;
}

/**
 * Asks A (and AAAA) through a dedicated c-ares `Resolver`, with a hard deadline per query.
 * No caching here: `DnsCache` owns that.
 */
export class DnsQuerier {
  readonly #resolver: Resolver;
  // c-ares backs off between tries, so its own total can exceed timeoutMs × tries; this caps it.
  readonly #budgetMs: number;
  readonly #ipv6: boolean;

  constructor(options: QuerierOptions) {
    this.#resolver = new Resolver({ timeout: options.timeoutMs, tries: options.tries });
    this.#budgetMs = options.timeoutMs * options.tries;
    this.#ipv6 = options.ipv6;
    if (options.servers.length > 0) {
      try {
        this.#resolver.setServers(options.servers);
      } catch (cause) {
        throw new DnsError(
          DnsErrorCode.INVALID_OPTION,
          `DnsCacheOptions.servers must be "ip[:port]" strings; got ${JSON.stringify(options.servers)} (array)`,
          { cause },
        );
      }
    }
  }

  /** A records first, then AAAA; a failure only when neither family has records. */
  async query(host: string): Promise<QueryResult> {
    const v4 = this.#ask(host, 4);
    const v6 = this.#ipv6 ? this.#ask(host, 6) : undefined;
    const a = await v4;
    let aaaa: Outcome | undefined;
    if (v6) aaaa = 'records' in a ? await withinDelay(v6, RESOLUTION_DELAY_MS) : await v6;
    const records = [
      ...('records' in a ? a.records.map((r) => ({ ...r, family: 4 as const })) : []),
      ...(aaaa && 'records' in aaaa ? aaaa.records.map((r) => ({ ...r, family: 6 as const })) : []),
    ];
    if (records.length > 0) return { ok: true, records };
    return { ok: false, ...pickFailure(a, aaaa) };
  }

  async #ask(host: string, family: 4 | 6): Promise<Outcome> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<Outcome>((resolve) => {
      timer = setTimeout(
        () => resolve({ code: DnsErrorCode.TIMEOUT, dnsCode: 'ETIMEOUT' }),
        this.#budgetMs,
      );
    });
    const answer = (
      family === 4
        ? this.#resolver.resolve4(host, { ttl: true })
        : this.#resolver.resolve6(host, { ttl: true })
    ).then(
      (records): Outcome => ({ records }),
      (error: NodeJS.ErrnoException): Outcome => toFailure(error),
    );
    try {
      return await Promise.race([answer, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }
}

type Failure = { code: DnsErrorCode; dnsCode: string };

function toFailure(error: NodeJS.ErrnoException): Failure {
  const dnsCode = error.code ?? 'EUNKNOWN';
  switch (dnsCode) {
    case 'ENOTFOUND':
    case 'ENODATA':
      return { code: DnsErrorCode.NOT_FOUND, dnsCode };
    case 'ETIMEOUT':
      return { code: DnsErrorCode.TIMEOUT, dnsCode };
    default:
      return { code: DnsErrorCode.SERVER_FAILURE, dnsCode };
  }
}

/** NOT_FOUND only when both families say so; otherwise the transient failure is reported. */
function pickFailure(a: Outcome, aaaa: Outcome | undefined): Failure {
  const fa: Failure = 'code' in a ? a : { code: DnsErrorCode.NOT_FOUND, dnsCode: 'ENODATA' };
  if (!aaaa || !('code' in aaaa)) return fa;
  return fa.code === DnsErrorCode.NOT_FOUND && aaaa.code !== DnsErrorCode.NOT_FOUND ? aaaa : fa;
}

async function withinDelay(
  outcome: Promise<Outcome>,
  delayMs: number,
): Promise<Outcome | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), delayMs);
  });
  try {
    return await Promise.race([outcome, late]);
  } finally {
    clearTimeout(timer);
  }
}
