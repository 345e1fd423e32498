/**
 * The IPC link between a pod of the local cluster and its supervisor. The pod tells the
 * supervisor it has joined the registry (so `up` returns only once a `seed` right after it
 * finds owners): one message, sent when the pod runs. The channel then stays open, unref'd:
 * it closes when the supervisor dies, even by SIGKILL, and the pod stops then instead of
 * crawling on as an orphan nobody can stop with `down`. Only a process the supervisor started
 * (it sets {@link READY_IPC_ENV}) uses it: another parent's IPC channel is left alone.
 */

/** Set to `1` in the environment of every pod the supervisor starts. */
export const READY_IPC_ENV = 'SHARDLINE_READY_IPC';

/** The message a pod sends once it has joined. */
export const READY_MESSAGE = 'shardline:pod-joined';

const startedBySupervisor = () => process.env[READY_IPC_ENV] === '1';

/** Tells the supervisor (if any) that this pod has joined; a no-op otherwise. */
export function signalJoined(): void {
  if (!startedBySupervisor() || !process.send || !process.connected) return;
  // A supervisor that died already only makes the send fail: nothing to tell then.
  process.send(READY_MESSAGE, undefined, {}, () => undefined);
}

/**
 * Stops this pod gracefully (as its SIGTERM does: release, leave, hand off) once the supervisor
 * that started it is gone; `say` tells why, first. A no-op outside the local cluster. The
 * channel is unref'd: it never keeps a finished pod's process alive.
 */
export function stopWithSupervisor(say: (message: string) => void): void {
  if (!startedBySupervisor() || !process.channel) return;
  process.channel.unref();
  const supervisor = process.ppid;
  process.once('disconnect', () => {
    say(`the supervisor (pid ${supervisor}) is gone: stopping gracefully`);
    process.kill(process.pid, 'SIGTERM');
  });
}
