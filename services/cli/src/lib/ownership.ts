/**
 * Who owns a domain, as the CLI sees it. Interim, like the API's: the ring over the pods
 * the frontier has seen (`<prefix>:pods`), or a fixed `--pods a,b` list. This is the one
 * function to swap for the membership registry (`@shardline/membership`) once it publishes
 * members, weights and ring parameters.
 */
import {
  ClusterRing,
  type ClusterView,
  FrontierPodsClusterView,
  StaticClusterView,
} from '@shardline/api';
import { FrontierKeys } from '@shardline/frontier';
import type { Cluster, Redis } from 'ioredis';
import { CommandError, CommandErrorCode } from './command-error.js';

/** Options of {@link resolveOwnership}. */
export interface OwnershipOptions {
  /** Frontier key prefix. */
  prefix: string;
  /** Fixed membership (`--pods`); otherwise the pods the frontier has seen. */
  pods?: readonly string[];
  /** Ring tokens per unit weight. @default 8192 (the ring's default) */
  vnodes?: number;
  /** Ring token seed. @default 0 */
  seed?: number;
}

/** The ring the CLI reasons with, and where its members came from. */
export interface Ownership {
  cluster: ClusterRing;
  /** `'--pods'` or `'pods seen in the frontier'`. */
  source: string;
  /** Alive members of the ring, sorted. */
  pods: string[];
  /**
   * The owner of a domain. Throws a {@link CommandError} (`NO_PODS`) when the ring is
   * empty, since a URL queued for nobody would never be claimed.
   */
  ownerOf(domain: string): string;
  /** Throws the `NO_PODS` {@link CommandError} when the ring is empty. */
  requirePods(): void;
}

/** Builds the ring the CLI uses for owners (see the module comment). */
export async function resolveOwnership(
  redis: Redis | Cluster,
  options: OwnershipOptions,
): Promise<Ownership> {
  const fixed = options.pods !== undefined && options.pods.length > 0;
  const view: ClusterView = fixed
    ? new StaticClusterView([...(options.pods ?? [])])
    : new FrontierPodsClusterView(redis, new FrontierKeys(options.prefix));
  // refreshMs: a CLI run is short; one snapshot serves the whole command.
  const cluster = new ClusterRing(view, {
    vnodes: options.vnodes,
    seed: options.seed,
    refreshMs: Number.MAX_SAFE_INTEGER,
  });
  const snapshot = await cluster.snapshot();
  const pods = snapshot.members.filter((m) => m.alive).map((m) => m.id);
  const source = fixed ? '--pods' : 'pods seen in the frontier';
  const requirePods = (): void => {
    if (snapshot.ring.size === 0) {
      throw new CommandError(
        CommandErrorCode.NO_PODS,
        'no crawler pod has registered in this frontier yet, so new URLs have no owner: start a pod first (`shardline crawl`), or pass --pods <ids> with the pod ids that will crawl (e.g. --pods "$(hostname)" for a local `shardline crawl`)',
      );
    }
  };
  return {
    cluster,
    source,
    pods,
    requirePods,
    // A plain closure: the frontier calls it detached from this object.
    ownerOf: (domain: string): string => {
      requirePods();
      return snapshot.ring.owner(domain);
    },
  };
}
