/**
 * Reads the items stream with a consumer group, as a downstream worker would: each entry is
 * read once per group, printed as one JSON line, then acknowledged (XACK). Several copies with
 * different --consumer names share the work. Exits after --idle-ms without new entries.
 *
 *   node examples/read-items.mjs --redis redis://127.0.0.1:6379 [--stream sl:items]
 *     [--group items-readers] [--consumer reader-1] [--idle-ms 2000]
 */
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';

const { values } = parseArgs({
  options: {
    redis: { type: 'string', default: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' },
    stream: { type: 'string', default: 'sl:items' },
    group: { type: 'string', default: 'items-readers' },
    consumer: { type: 'string', default: 'reader-1' },
    'idle-ms': { type: 'string', default: '2000' },
  },
});

const redis = new Redis(values.redis, { maxRetriesPerRequest: 3 });
try {
  // From the start of the stream for a new group; an existing group keeps its position.
  await redis.xgroup('CREATE', values.stream, values.group, '0', 'MKSTREAM').catch((error) => {
    if (!String(error.message).includes('BUSYGROUP')) throw error;
  });
  let read = 0;
  for (;;) {
    const reply = await redis.xreadgroup(
      'GROUP',
      values.group,
      values.consumer,
      'COUNT',
      100,
      'BLOCK',
      Number(values['idle-ms']),
      'STREAMS',
      values.stream,
      '>',
    );
    if (!reply) break;
    for (const [, entries] of reply) {
      for (const [id, fields] of entries) {
        const entry = {};
        for (let i = 0; i + 1 < fields.length; i += 2) entry[fields[i]] = fields[i + 1];
        const item = { ...entry, atMs: Number(entry.atMs), item: JSON.parse(entry.item) };
        process.stdout.write(`${JSON.stringify(item)}\n`);
        await redis.xack(values.stream, values.group, id);
        read += 1;
      }
    }
  }
  process.stderr.write(
    `read ${read} items from ${values.stream} as ${values.group}/${values.consumer}\n`,
  );
} finally {
  redis.disconnect();
}
