/**
 * `<data-dir>/cluster.json`: how `scale`, `down` and `status` in another terminal find the
 * running supervisor. It holds the control port and its bearer token, so it is written with
 * mode 0600 (atomically: a reader never sees half a file).
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Where a pod is in its life. */
export type PodState = 'starting' | 'running' | 'restarting' | 'stopping' | 'failed' | 'exited';

/** One pod as the supervisor reports it. */
export interface PodStatus {
  /** Stable id (`local-<index>`), handed to the pod as `POD_ID`. */
  id: string;
  index: number;
  /** Pid of the current process; `undefined` while restarting, failed or exited. */
  pid?: number;
  state: PodState;
  /** When the current process started (epoch ms). */
  startedAtMs?: number;
  /** How many times the supervisor started it again after a crash. */
  restarts: number;
  /** How the last process ended, e.g. `code 1` or `signal SIGKILL`. */
  lastExit?: string;
  /** The last process's one-line error (`cannot reach Redis at …`), when it printed one. */
  lastError?: string;
}

/** The pod id of slot `index`. */
export function podId(index: number): string {
  return `local-${index}`;
}

/** Where the pods `ids` stand after a start (`up`, `scale`), read from the supervisor's status. */
export interface JoinProgress {
  /**
   * `pod(s) local-1 (code 1: cannot reach Redis at …) failed at start` when the supervisor gave
   * one of them up; else undefined.
   */
  crashLooped?: string;
  /** The ids not running yet (not listed, starting, restarting). */
  waiting: string[];
}

/**
 * How far the pods `ids` of `pods` have come: a pod counts once `running` (it has joined the
 * registry) or `exited` (finished on its own, `--exit-when-idle`, after joining).
 */
export function joinProgress(pods: readonly PodStatus[], ids: readonly string[]): JoinProgress {
  const byId = new Map(pods.map((pod) => [pod.id, pod]));
  const failed = ids.flatMap((id) => {
    const pod = byId.get(id);
    if (pod?.state !== 'failed') return [];
    return [`${pod.id} (${pod.lastExit}${pod.lastError ? `: ${pod.lastError}` : ''})`];
  });
  const waiting = ids.filter((id) => {
    const state = byId.get(id)?.state;
    return state !== 'running' && state !== 'exited';
  });
  return {
    crashLooped: failed.length > 0 ? `pod(s) ${failed.join(', ')} failed at start` : undefined,
    waiting,
  };
}

/** The content of `cluster.json`. */
export interface ClusterFile {
  version: 1;
  supervisorPid: number;
  /** Control channel: HTTP on 127.0.0.1:`port`, `Authorization: Bearer <token>`. */
  port: number;
  token: string;
  dataDir: string;
  startedAtMs: number;
  redis: { url: string; embedded: boolean };
  graceMs: number;
  pods: PodStatus[];
}

/** The path of the control file of `dataDir`. */
export function clusterFilePath(dataDir: string): string {
  return join(resolve(dataDir), 'cluster.json');
}

/** Writes the control file (mode 0600, via a temp file and rename). */
export function writeClusterFile(dataDir: string, file: ClusterFile): void {
  const path = clusterFilePath(dataDir);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
}

/**
 * The control file of `dataDir`, or `undefined` when there is none or it is not one of ours
 * (not JSON, another version): the supervisor writes it atomically, so a half-written file
 * cannot be one. Other read errors (permissions) are thrown.
 */
export function readClusterFile(dataDir: string): ClusterFile | undefined {
  let text: string;
  try {
    text = readFileSync(clusterFilePath(dataDir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let parsed: ClusterFile;
  try {
    parsed = JSON.parse(text) as ClusterFile;
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
  return parsed?.version === 1 && typeof parsed.port === 'number' ? parsed : undefined;
}

/** Removes the control file of `dataDir` (no error when it is gone). */
export function removeClusterFile(dataDir: string): void {
  rmSync(clusterFilePath(dataDir), { force: true });
}

export { isAlive } from '../lib/is-alive.js';
