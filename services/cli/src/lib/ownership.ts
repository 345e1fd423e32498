/**
 * Who owns a domain, as the CLI sees it: the ring the running crawlers build, read from
 * the pod registry (`@shardline/membership`, through the API's `RegistryClusterView`): its
 * live members, their weights, and the stored vnodes and seed. `--pods a,b` replaces it
 * with a fixed list. While no pod has ever joined the registry, the pods seen in the
 * frontier counters stand in (as in the API), so a crawler that runs without membership
 * still gets its URLs.
 */
import {
  ClusterRing,
  type ClusterSnapshot,
  type ClusterView,
  type MembershipSource,
  RegistryClusterView,
  StaticClusterView,
} from '@shardline/api/reader';
import type { Cluster, Redis } from 'ioredis';
import { CliError, CliErrorCode } from '../errors.js';

/** Options of {@link resolveOwnership}. */
export interface OwnershipOptions {
  /** Key prefix of the frontier and the registry. */
  prefix: string;
  /** Fixed membership (`--pods`); otherwise the registry. */
  pods?: readonly string[];
  /** Ring tokens per unit weight when the registry stores none. @default 8192 */
  vnodes?: number;
  /** Ring token seed when the registry stores none. @default 0 */
  seed?: number;
}

/** The ring the CLI uses, and where its members came from. */
export interface Ownership {
  cluster: ClusterRing;
  /** The membership snapshot the ring was built from (one per command). */
  snapshot: ClusterSnapshot;
  /** Machine-readable origin of the members (as the API's `membership` field). */
  membership: MembershipSource;
  /** The same for people: `'--pods'`, `'registry'` or `'pods seen in the frontier'`. */
  source: string;
  /** Members on the ring (the live ones), sorted. */
  pods: string[];
  /**
   * The owner of a domain. Throws the `NO_PODS` {@link CliError} when the ring is empty,
   * since a URL queued for nobody would never be claimed.
   */
  ownerOf(domain: string): string;
  /**
   * Throws the `NO_PODS` {@link CliError} when the ring is empty; `consequence` says what needs
   * an owner (default: `new URLs have no owner`).
   */
  requirePods(consequence?: string): void;
}

const SOURCE_TEXT: Record<MembershipSource, string> = {
  static: '--pods',
  registry: 'registry',
  'frontier-pods': 'pods seen in the frontier',
};

/** Why nobody owns anything, and so `consequence`, as one line that says what to do. */
function noPodsMessage(snapshot: ClusterSnapshot, consequence: string): string {
  const remedy =
    'start a pod first (`shardline crawl`), or pass --pods <ids> with the pod ids that will crawl';
  if (snapshot.source === 'frontier-pods') {
    return `no crawler pod has registered in this frontier yet, so ${consequence}: ${remedy} (e.g. --pods "$(hostname)" for a local \`shardline crawl\`); a pod that is starting registers within seconds: then run this again`;
  }
  if (snapshot.members.length === 0) {
    return `no crawler pod is live in the registry (epoch ${snapshot.epoch}: every pod has left), so ${consequence}: ${remedy}`;
  }
  const ids = snapshot.members.map((m) => m.id).join(', ');
  return `no crawler pod is live in the registry: the session of every member (${ids}) has expired, so ${consequence}: ${remedy}`;
}

/** Builds the ring the CLI uses for owners (see the module comment). */
export async function resolveOwnership(
  redis: Redis | Cluster,
  options: OwnershipOptions,
): Promise<Ownership> {
  const fixed = options.pods !== undefined && options.pods.length > 0;
  const view: ClusterView = fixed
    ? new StaticClusterView([...(options.pods ?? [])])
    : new RegistryClusterView(redis, options.prefix);
  // refreshMs: a CLI run is short; one snapshot serves the whole command.
  const cluster = new ClusterRing(view, {
    vnodes: options.vnodes,
    seed: options.seed,
    refreshMs: Number.MAX_SAFE_INTEGER,
  });
  const snapshot = await cluster.snapshot();
  const requirePods = (consequence = 'new URLs have no owner'): void => {
    if (snapshot.ring.size === 0) {
      throw new CliError(CliErrorCode.NO_PODS, noPodsMessage(snapshot, consequence));
    }
  };
  return {
    cluster,
    snapshot,
    membership: snapshot.source,
    source: SOURCE_TEXT[snapshot.source],
    pods: [...snapshot.ring.ids()],
    requirePods,
    // A plain closure: the frontier calls it detached from this object.
    ownerOf: (domain: string): string => {
      requirePods();
      return snapshot.ring.owner(domain);
    },
  };
}
