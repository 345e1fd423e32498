/**
 * How `scale`, `down` and `status` reach a running supervisor: read `<data-dir>/cluster.json`,
 * check the supervisor pid is alive, then call its control channel. Every failure is one
 * clear {@link CliError} line.
 */
import { CliError, CliErrorCode } from '../errors.js';
import {
  type ClusterFile,
  clusterFilePath,
  isAlive,
  joinProgress,
  readClusterFile,
} from './control-file.js';

/** A control-file entry whose supervisor is gone: the pods it may have left behind. */
export class StaleClusterError extends CliError {
  readonly file: ClusterFile;

  constructor(file: ClusterFile, message: string) {
    super(CliErrorCode.IO, message);
    this.file = file;
  }
}

/** The supervisor of `dataDir`'s local cluster. */
export class ClusterClient {
  readonly file: ClusterFile;

  private constructor(file: ClusterFile) {
    this.file = file;
  }

  /**
   * Finds the running cluster of `dataDir`. Throws a {@link CliError} when there is no
   * control file, and a {@link StaleClusterError} when its supervisor is no longer alive.
   */
  static connect(dataDir: string): ClusterClient {
    const file = readClusterFile(dataDir);
    if (!file) {
      throw new CliError(
        CliErrorCode.IO,
        `no local cluster is running (no ${clusterFilePath(dataDir)}); start one with \`shardline up --pods N\``,
      );
    }
    if (!isAlive(file.supervisorPid)) {
      throw new StaleClusterError(
        file,
        `the local cluster in ${file.dataDir} is not running: its supervisor (pid ${file.supervisorPid}) is gone; \`shardline down\` stops the pods it left and removes ${clusterFilePath(dataDir)}`,
      );
    }
    return new ClusterClient(file);
  }

  /** GET /status. */
  status(): Promise<ClusterFile> {
    return this.#call('GET', '/status');
  }

  /** POST /scale: resolves once started pods are spawned and stopped pods have exited. */
  scale<T>(pods: number): Promise<T> {
    return this.#call('POST', '/scale', { pods });
  }

  /**
   * Polls GET /status until every pod of `ids` is `running` (has joined the registry). Throws
   * a {@link CliError} naming the pods when one crash-loops (`failed`) or `timeoutMs` passes.
   */
  async waitJoined(ids: readonly string[], timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { crashLooped, waiting } = joinProgress((await this.status()).pods, ids);
      if (crashLooped) {
        throw new CliError(
          CliErrorCode.IO,
          `${crashLooped}; their lines are in ${this.file.dataDir}/cluster.log`,
        );
      }
      if (waiting.length === 0) return;
      if (Date.now() >= deadline) {
        throw new CliError(
          CliErrorCode.IO,
          `pod(s) ${waiting.join(', ')} had not joined the registry after ${timeoutMs} ms (is Redis writable?); the supervisor keeps them starting, \`shardline status\` shows them`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** POST /down: resolves once every pod has exited. */
  down<T>(): Promise<T> {
    return this.#call('POST', '/down');
  }

  async #call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`http://127.0.0.1:${this.file.port}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.file.token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError(
        CliErrorCode.IO,
        `cannot reach the local cluster's supervisor (pid ${this.file.supervisorPid}) on 127.0.0.1:${this.file.port}: ${cause?.code ?? cause?.message ?? (error as Error).message}`,
      );
    }
    let payload: (T & { error?: string }) | undefined;
    let unreadable: Error | undefined;
    try {
      payload = (await res.json()) as T & { error?: string };
    } catch (error) {
      unreadable = error as Error;
    }
    if (!res.ok) {
      throw new CliError(
        res.status === 400 ? CliErrorCode.USAGE : CliErrorCode.IO,
        `the supervisor refused ${method} ${path}: ${payload?.error ?? `HTTP ${res.status}`}`,
      );
    }
    if (payload === undefined) {
      throw new CliError(
        CliErrorCode.IO,
        `the supervisor's answer to ${method} ${path} is not JSON: ${unreadable?.message}`,
      );
    }
    return payload;
  }
}
