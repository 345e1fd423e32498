/**
 * What `shardline up` hands the supervisor process (as JSON on its stdin, so a Redis URL
 * with a password never shows in `ps`), and where the CLI's own entry point lives.
 */
import { fileURLToPath } from 'node:url';

/** The supervisor's settings. */
export interface ClusterSpec {
  /** Pods to start. */
  pods: number;
  /** Absolute data directory: `cluster.json`, `cluster.log`, `redis/`. */
  dataDir: string;
  /** Redis of the pods; none: the supervisor starts the embedded Redis in `<dataDir>/redis`. */
  redisUrl?: string;
  /** `shardline crawl` options for every pod. */
  crawlArgs: string[];
  /** SIGTERM → SIGKILL grace period. */
  graceMs: number;
  /**
   * Set: the pods are URLFrontier nodes (`shardline urlfrontier`, no fetching), pod `i` on port
   * `port + i`, each given `args`; `crawlArgs` is then unused.
   */
  urlfrontier?: { port: number; args: string[] };
}

/** `services/cli/bin/shardline.js`, found from this file, not from the working directory. */
export const SHARDLINE_BIN = fileURLToPath(new URL('../../bin/shardline.js', import.meta.url));

/** Name of the hidden command that runs the supervisor. */
export const SUPERVISOR_COMMAND = 'local-cluster-supervisor';

/** Reads and checks a spec (the supervisor's stdin). */
export function parseSpec(text: string): ClusterSpec {
  const spec = JSON.parse(text) as Partial<ClusterSpec>;
  if (
    !Number.isInteger(spec.pods) ||
    typeof spec.dataDir !== 'string' ||
    !Array.isArray(spec.crawlArgs) ||
    !Number.isInteger(spec.graceMs)
  ) {
    throw new TypeError(`invalid local cluster spec: ${text.slice(0, 200)}`);
  }
  return spec as ClusterSpec;
}
