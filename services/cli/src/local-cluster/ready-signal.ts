/**
 * How a pod of the local cluster tells its supervisor it has joined the registry (so `up`
 * returns only once a `seed` right after it finds owners): one IPC message, sent when the
 * pod runs, then the channel is closed. Only a process the supervisor started (it sets
 * {@link READY_IPC_ENV}) sends it: another parent's IPC channel is left alone.
 */

/** Set to `1` in the environment of every pod the supervisor starts. */
export const READY_IPC_ENV = 'SHARDLINE_READY_IPC';

/** The message a pod sends once it has joined. */
export const READY_MESSAGE = 'shardline:pod-joined';

/** Tells the supervisor (if any) that this pod has joined; a no-op otherwise. */
export function signalJoined(): void {
  if (process.env[READY_IPC_ENV] !== '1' || !process.send || !process.connected) return;
  // A supervisor that died already only makes the send fail: nothing to tell then.
  process.send(READY_MESSAGE, undefined, {}, () => {
    if (process.connected) process.disconnect();
  });
}
