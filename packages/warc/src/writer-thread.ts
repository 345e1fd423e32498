/**
 * The worker thread of a {@link ThreadedWarcWriter}: owns a {@link WarcWriter} (building and
 * gzipping the records, their digests, the appends, rotation, the `.open` file and its repair)
 * so none of that CPU runs on the pod's JavaScript thread. Started with the writer's options as
 * `workerData`; answers each batch of exchanges once all of them are appended (or failed).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { WarcError, WarcErrorCode } from './errors.js';
import type {
  FromWriterThread,
  ThreadCounters,
  ThreadError,
  ToWriterThread,
} from './thread-messages.js';
import { WarcWriter, type WarcWriterOptions } from './warc-writer.js';

const port = parentPort;
if (!port) throw new Error('writer-thread.ts runs as a worker thread of ThreadedWarcWriter');

function threadError(error: unknown): ThreadError {
  if (error instanceof WarcError) return { code: error.code, message: error.message };
  return { code: WarcErrorCode.IO, message: (error as Error).message ?? String(error) };
}

function countersOf(writer: WarcWriter): ThreadCounters {
  const { repaired: _repaired, ...counters } = writer.stats();
  return counters;
}

function send(message: FromWriterThread): void {
  port!.postMessage(message);
}

async function serve(writer: WarcWriter): Promise<void> {
  // Batches whose writes are still running: a close waits for them.
  const running = new Set<Promise<void>>();
  port!.on('message', (message: ToWriterThread) => {
    if (message.type === 'write') {
      // Written in arrival order: WarcWriter appends in call order.
      const writes = message.exchanges.map((exchange) => writer.write(exchange));
      const answered = Promise.allSettled(writes).then((settled) =>
        send({
          type: 'written',
          batch: message.batch,
          results: settled.map((s) =>
            s.status === 'fulfilled' ? s.value : { error: threadError(s.reason) },
          ),
          counters: countersOf(writer),
        }),
      );
      running.add(answered);
      void answered.finally(() => running.delete(answered));
      return;
    }
    void (async () => {
      await Promise.allSettled([...running]);
      let error: ThreadError | undefined;
      try {
        await writer.close();
      } catch (closeError) {
        error = threadError(closeError);
      }
      send({ type: 'closed', counters: countersOf(writer), ...(error ? { error } : {}) });
      port!.close();
    })();
  });
}

try {
  const writer = await WarcWriter.open(workerData as WarcWriterOptions);
  send({ type: 'opened', repaired: writer.stats().repaired });
  await serve(writer);
} catch (error) {
  send({ type: 'failed', error: threadError(error) });
  port.close();
}
