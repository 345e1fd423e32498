/**
 * A process that shares another shardline process's embedded Redis (`startEmbeddedRedis` found
 * it running) must not lose it when that owner finishes first: two crawls on one data dir (two
 * crawl ids, or pod ids) end in any order, and the owner's stop shuts its server down (its
 * watchdog does, after a kill -9). So the sharer watches the owner; once it is gone, the sharer
 * starts the server again from the data dir on the same port and owns it from then on. Its
 * clients reconnect to the same address and find everything (the server shut down cleanly,
 * writing its AOF). Two sharers may race: the one whose start fails finds the other's server
 * next time and shares it in turn.
 */
import type { EmbeddedRedis } from './embedded-redis.js';
import { isAlive } from './lib/is-alive.js';

/** How often a sharer checks that the owner still runs. */
const OWNER_CHECK_MS = 1000;

/** What {@link outliveOwner} needs of the server's data dir. */
export interface SharedServer {
  /** Starts (or shares) the server of the same data dir on the same port. */
  restart: () => Promise<EmbeddedRedis>;
  /** Whether the owner's stop is still shutting the server down (it answers, unrecorded). */
  shuttingDown: () => Promise<boolean>;
  /** Says when this process takes the server over, and when it cannot (once per failing streak). */
  notice: (message: string) => void;
}

/** `shared`, which goes on after its owner (see the file comment). */
export function outliveOwner(
  shared: EmbeddedRedis & { sharedWith: number },
  { restart, shuttingDown, notice }: SharedServer,
): EmbeddedRedis {
  let owner = shared.sharedWith;
  let adopted: EmbeddedRedis | undefined;
  let stopped = false;
  let failing = false;
  let timer: NodeJS.Timeout | undefined;
  let checking: Promise<void> | undefined;
  const check = async (): Promise<void> => {
    if (isAlive(owner) || (await shuttingDown())) return schedule();
    try {
      const next = await restart();
      failing = false;
      if (stopped) return next.stop();
      if (next.started) {
        adopted = next;
        notice(
          `the shardline process ${owner} that ran the embedded Redis has exited: this process runs it now (port ${next.port}, same data)`,
        );
        return;
      }
      // Another sharer was first: follow it instead (this one, not the handle's own watch).
      await next.stop();
      owner = next.sharedWith ?? owner;
    } catch (error) {
      if (!failing) {
        notice(
          `the shardline process ${owner} that ran the embedded Redis has exited, and starting it again failed (retried every second): ${(error as Error).message}`,
        );
      }
      failing = true;
    }
    schedule();
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      checking = check();
    }, OWNER_CHECK_MS);
    // A short command sharing the server exits when its work is done: this must not hold it.
    timer.unref();
  };
  schedule();
  return {
    url: shared.url,
    port: shared.port,
    dataDir: shared.dataDir,
    started: false,
    sharedWith: shared.sharedWith,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await checking;
      await adopted?.stop();
    },
  };
}
