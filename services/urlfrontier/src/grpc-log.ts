/**
 * grpc-js writes its own log lines to stderr as bare text (`E No address added out of total 1
 * resolved`), beside the node's JSON lines. They go to the node's logger instead (grpc-js's
 * logger is one per process; GRPC_VERBOSITY still decides which lines it emits). While the
 * server binds they are dropped: a failed bind is reported by the node as one line naming the
 * address and the cause, and grpc-js's line would say it a second time, less clearly.
 */
import { setLogger } from '@grpc/grpc-js';
import type { Logger } from 'pino';

let binding = false;

/** Sends grpc-js's log lines to `log` (`component: "grpc"`), error lines as warnings. */
export function routeGrpcLogs(log: Logger): void {
  const to =
    (level: 'warn' | 'info' | 'debug') =>
    (...parts: unknown[]) => {
      if (!binding) log[level]({ component: 'grpc' }, parts.map(String).join(' '));
    };
  setLogger({ error: to('warn'), info: to('info'), debug: to('debug') });
}

/** Runs a bind whose outcome the caller reports; grpc-js's lines until it settles are dropped. */
export async function bindQuietly<T>(bind: () => Promise<T>): Promise<T> {
  binding = true;
  try {
    return await bind();
  } finally {
    binding = false;
  }
}
