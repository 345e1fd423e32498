/**
 * Child process of the crash test: writes ~200 KB records into DIR as pod `crash` until it is
 * killed, printing "ready" after the first one (argv: DIR, then `thread` to write through
 * ThreadedWarcWriter as the pod does, or `inline` for WarcWriter on this thread).
 */
import { randomBytes } from 'node:crypto';
import { ThreadedWarcWriter, WarcWriter } from '../src/index.js';

const options = { dir: process.argv[2]!, pod: 'crash' };
const writer =
  process.argv[3] === 'thread'
    ? await ThreadedWarcWriter.open(options)
    : await WarcWriter.open(options);
for (let i = 0; ; i++) {
  // Random bytes do not compress: each member is ~200 KB, so a kill lands inside one often.
  await writer.write({
    url: `http://crash.test/${i}`,
    sentAtMs: Date.now(),
    request: { headers: [] },
    response: { status: 200, statusText: 'OK', headers: [], body: randomBytes(200_000) },
  });
  if (i === 0) process.stdout.write('ready\n');
}
