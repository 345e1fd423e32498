/**
 * Prometheus metrics: the frontier's counters are read once per scrape (a handful of
 * HGETALL/ZCARD calls) and copied into a private prom-client registry, next to the
 * API's own request histogram and process metrics.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { CrawlSummary } from './crawls.js';
import type { StatsReader } from './stats-reader.js';

/** Per-crawl figure → Prometheus gauge (label `crawl`; the default crawl is `default`). */
const CRAWL_GAUGES: Record<string, [string, string]> = {
  queued: ['shardline_crawl_queue_depth', 'URLs queued in the crawl'],
  inFlight: ['shardline_crawl_urls_in_flight', 'URLs of the crawl leased and not yet completed'],
  fetched: ['shardline_crawl_urls_fetched', 'URLs of the crawl fetched and completed (a sum)'],
  failed: ['shardline_crawl_fetch_failures', 'failed fetch attempts of the crawl (a sum)'],
  dead: ['shardline_crawl_urls_dead', 'URLs of the crawl dead-lettered and not requeued'],
  livePods: ['shardline_crawl_live_pods', 'live pods serving the crawl'],
};

/** Global counter field → Prometheus counter name (monotonic sums). */
const GLOBAL_COUNTERS: Record<string, [string, string]> = {
  enqueued: ['shardline_urls_enqueued_total', 'URLs accepted into the frontier'],
  duplicates: ['shardline_urls_duplicate_total', 'URLs refused as already seen'],
  rejected: ['shardline_urls_rejected_total', 'URLs refused as invalid'],
  overCap: ['shardline_urls_over_cap_total', 'URLs refused because the domain queue was full'],
  claimed: ['shardline_leases_claimed_total', 'URLs handed out to pods'],
  fetched: ['shardline_urls_fetched_total', 'URLs fetched and completed'],
  failed: ['shardline_fetch_failures_total', 'failed fetch attempts (each retry counts)'],
  retried: ['shardline_fetch_retries_total', 'failed attempts queued again for a retry'],
  released: ['shardline_leases_released_total', 'leases given back untouched'],
  repeats: ['shardline_fetch_repeats_total', 'leases taken back after expiry or pod death'],
  late: ['shardline_lease_late_results_total', 'results that arrived after their lease was gone'],
  bytes: ['shardline_fetched_bytes_total', 'bytes received by completed fetches'],
};

/** Per-pod counter field → Prometheus counter name (label `pod`). */
const POD_COUNTERS: Record<string, [string, string]> = {
  claimed: ['shardline_pod_leases_claimed_total', 'URLs handed out to the pod'],
  fetched: ['shardline_pod_urls_fetched_total', 'URLs the pod fetched and completed'],
  failed: ['shardline_pod_fetch_failures_total', 'failed fetch attempts of the pod'],
  released: ['shardline_pod_leases_released_total', 'leases the pod gave back'],
  repeats: ['shardline_pod_fetch_repeats_total', "the pod's leases taken back"],
};

/** The API's metrics; `refresh()` before each scrape. */
export class ApiMetrics {
  readonly registry = new Registry();
  readonly requestDuration: Histogram<'method' | 'route' | 'status_code'>;
  readonly #reader: StatsReader;
  readonly #queued: Gauge;
  readonly #inFlight: Gauge;
  readonly #dead: Gauge;
  readonly #domains: Gauge;
  readonly #archived: Gauge;
  readonly #pods: Gauge<'state'>;
  readonly #epoch: Gauge;
  readonly #counters = new Map<string, Counter>();
  readonly #podCounters = new Map<string, Counter<'pod'>>();
  readonly #podInFlight: Gauge<'pod'>;
  readonly #podDueHosts: Gauge<'pod'>;
  readonly #podBacklogHosts: Gauge<'pod'>;
  readonly #podOwned: Gauge<'pod'>;
  readonly #podShare: Gauge<'pod'>;
  readonly #errorsByCode: Counter<'code'>;
  readonly #podFaults: Gauge<'pod' | 'kind'>;
  readonly #frontierLost: Gauge;
  readonly #crawls: (() => Promise<CrawlSummary[]>) | undefined;
  readonly #crawlGauges = new Map<string, Gauge<'crawl'>>();

  /** @param crawls lists the crawls for the per-crawl gauges (none when absent). */
  constructor(reader: StatsReader, crawls?: () => Promise<CrawlSummary[]>) {
    this.#reader = reader;
    this.#crawls = crawls;
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'shardline_api_' });
    this.requestDuration = new Histogram({
      name: 'shardline_api_request_duration_seconds',
      help: 'API request latency by route template',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    });
    const gauge = (name: string, help: string) => new Gauge({ name, help, registers });
    this.#queued = gauge(
      'shardline_queue_depth',
      'URLs queued in the frontier across all domains (scale crawler pods on this)',
    );
    this.#inFlight = gauge('shardline_urls_in_flight', 'URLs leased and not yet completed');
    this.#dead = gauge('shardline_urls_dead', 'URLs dead-lettered and not requeued');
    this.#domains = gauge('shardline_domains', 'domains in the frontier index');
    this.#archived = gauge(
      'shardline_archived_domains',
      'idle domains folded into the archive (counted in shardline_domains)',
    );
    this.#epoch = gauge('shardline_membership_epoch', 'membership epoch seen by the API');
    this.#pods = new Gauge({
      name: 'shardline_pods',
      help: 'pods by state: alive and down (expired) members, departed pods not yet forgotten',
      labelNames: ['state'],
      registers,
    });
    for (const [field, [name, help]] of Object.entries(GLOBAL_COUNTERS)) {
      this.#counters.set(field, new Counter({ name, help, registers }));
    }
    for (const [field, [name, help]] of Object.entries(CRAWL_GAUGES)) {
      this.#crawlGauges.set(field, new Gauge({ name, help, labelNames: ['crawl'], registers }));
    }
    for (const [field, [name, help]] of Object.entries(POD_COUNTERS)) {
      this.#podCounters.set(field, new Counter({ name, help, labelNames: ['pod'], registers }));
    }
    const podGauge = (name: string, help: string) =>
      new Gauge({ name, help, labelNames: ['pod'], registers });
    this.#podInFlight = podGauge('shardline_pod_urls_in_flight', 'URLs leased by the pod');
    this.#podDueHosts = podGauge('shardline_pod_due_hosts', "hosts in the pod's due index");
    this.#podBacklogHosts = podGauge(
      'shardline_pod_backlog_hosts',
      "hosts of packed new domains in the pod's backlog, not yet claimed",
    );
    this.#podOwned = podGauge(
      'shardline_pod_owned_domains',
      'domains with queued URLs that the ring gives the pod (sampled above 1000 domains)',
    );
    this.#podFaults = new Gauge({
      name: 'shardline_pod_faults',
      help: 'background faults a live pod reported, by kind (redisOom, frontierLost, membership, frontier.forward, …)',
      labelNames: ['pod', 'kind'],
      registers,
    });
    this.#frontierLost = gauge(
      'shardline_frontier_lost',
      '1 when a pod found the frontier lost (SHARDLINE_ERR_FRONTIER_LOST: Redis lost its data); the crawl is not finished, it is gone',
    );
    this.#errorsByCode = new Counter({
      name: 'shardline_fetch_errors_total',
      help: 'failed fetch attempts by error code (SHARDLINE_ERR_*, or http-<status> for a 429 or 5xx; other = a reason that is neither)',
      labelNames: ['code'],
      registers,
    });
    this.#podShare = podGauge('shardline_pod_keyspace_share', 'fraction of the ring the pod owns');
  }

  /** Reads the frontier's counters and copies them into the registry. */
  async refresh(): Promise<void> {
    const [stats, pods, crawls] = await Promise.all([
      this.#reader.stats(),
      this.#reader.pods(),
      this.#crawls?.() ?? [],
    ]);
    // A deleted crawl must not be exported with its last values.
    for (const gauge of this.#crawlGauges.values()) gauge.reset();
    for (const crawl of crawls) {
      for (const [field, gauge] of this.#crawlGauges) {
        gauge.set({ crawl: crawl.crawlId }, crawl[field as keyof CrawlSummary] as number);
      }
    }
    this.#queued.set(stats.queued);
    this.#inFlight.set(stats.inFlight);
    this.#dead.set(stats.dead);
    this.#domains.set(stats.domains);
    this.#archived.set(Math.max(0, stats.counters.archivedDomains ?? 0));
    this.#epoch.set(stats.epoch);
    this.#pods.set({ state: 'alive' }, stats.livePods);
    this.#pods.set({ state: 'down' }, stats.pods - stats.livePods);
    this.#pods.set({ state: 'departed' }, pods.pods.filter((p) => p.state === 'departed').length);
    for (const [field, counter] of this.#counters) {
      counter.reset();
      counter.inc(Math.max(0, stats.counters[field] ?? 0));
    }
    this.#frontierLost.set(stats.frontierLost ? 1 : 0);
    this.#podFaults.reset();
    this.#errorsByCode.reset();
    for (const [field, n] of Object.entries(stats.counters)) {
      if (field.startsWith('error:'))
        this.#errorsByCode.inc({ code: field.slice(6) }, Math.max(0, n));
    }
    for (const counter of this.#podCounters.values()) counter.reset();
    for (const gauge of [
      this.#podInFlight,
      this.#podDueHosts,
      this.#podBacklogHosts,
      this.#podOwned,
      this.#podShare,
    ]) {
      gauge.reset();
    }
    // Live members only: a pod that is gone must not be exported with its last values (an
    // autoscaler or a sum over pods would keep reading them).
    for (const pod of pods.pods) {
      if (pod.state !== 'alive') continue;
      const labels = { pod: pod.id };
      for (const [field, counter] of this.#podCounters) {
        counter.inc(labels, Math.max(0, pod.counters[field] ?? 0));
      }
      this.#podInFlight.set(labels, pod.counters.inFlight ?? 0);
      this.#podDueHosts.set(labels, pod.dueHosts);
      this.#podBacklogHosts.set(labels, pod.backlogHosts);
      this.#podOwned.set(labels, pod.ownedDomains);
      this.#podShare.set(labels, pod.keyspaceShare);
      for (const [kind, n] of Object.entries(pod.faults)) {
        this.#podFaults.set({ pod: pod.id, kind }, n);
      }
    }
  }
}
