/**
 * The writer on its worker thread: the same files as WarcWriter (read back by node:zlib member by
 * member and by warcio), writes of one turn posted as one batch, rotation and `.open` renames on
 * close, and a thread that dies (out of its heap) failing only the writes it held, counted and
 * reported, with the next write on a new thread that repaired the dead one's file.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type HeaderPairs,
  ThreadedWarcWriter,
  type WarcError,
  WarcErrorCode,
  type WarcExchange,
} from '../src/index.js';
import { membersOf, sha1Base32, warcioRecords } from './warc-files.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'warc-thread-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function exchange(path: string, body: Buffer, headers: HeaderPairs = []): WarcExchange {
  return {
    url: `http://site.test${path}`,
    sentAtMs: Date.parse('2026-01-02T03:04:05.678Z'),
    ipAddress: '127.0.0.2',
    request: { headers: [['user-agent', 'shardline/0.1']] },
    response: {
      status: 200,
      statusText: 'OK',
      headers: [['Content-Type', 'text/html'], ...headers],
      body,
    },
  };
}

/** The threads of this process, as the OS counts them. */
function osThreads(): number {
  return Number(/^Threads:\s+(\d+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
}

function files(): string[] {
  return readdirSync(dir).sort();
}

describe('ThreadedWarcWriter', () => {
  it('writes concurrent pairs from its thread: locations exact, digests and payloads as given', async () => {
    const writer = await ThreadedWarcWriter.open({ dir, pod: 'pod-1', info: { software: 't' } });
    const bodies = Array.from({ length: 40 }, (_, i) => randomBytes(100 + i * 500));
    // One turn: all forty go to the thread in one message.
    const locations = await Promise.all(bodies.map((b, i) => writer.write(exchange(`/${i}`, b))));
    await writer.close();

    const [name] = files();
    expect(files()).toEqual([expect.stringMatching(/^shardline-\d{17}-pod-1-00000\.warc\.gz$/)]);
    const records = membersOf(join(dir, name!));
    expect(records.map((r) => r.type)).toEqual([
      'warcinfo',
      ...bodies.flatMap(() => ['response', 'request']),
    ]);
    for (const [i, at] of locations.entries()) {
      const response = records[1 + 2 * i]!;
      expect(at).toEqual({ file: name, offset: response.offset, length: response.length });
      expect(response.payload.equals(bodies[i]!)).toBe(true);
      expect(response.headers.get('WARC-Payload-Digest')).toBe(sha1Base32(bodies[i]!));
      expect(response.headers.get('WARC-Block-Digest')).toBe(sha1Base32(response.block));
      expect(records[2 + 2 * i]!.headers.get('WARC-Concurrent-To')).toBe(
        response.headers.get('WARC-Record-ID'),
      );
    }
    const parsed = await warcioRecords(join(dir, name!));
    expect(parsed.filter((r) => r.type === 'response').map((r) => r.url)).toEqual(
      bodies.map((_, i) => `http://site.test/${i}`),
    );
    expect(writer.stats()).toMatchObject({
      records: 81,
      filesClosed: 1,
      errors: 0,
      threadCrashes: 0,
    });
    expect(writer.stats().bytes).toBe(statSync(join(dir, name!)).size);
  });

  it('rotates at maxFileBytes and, on close, renames every file (no .open) and ends its thread', async () => {
    const threadsBefore = osThreads();
    const writer = await ThreadedWarcWriter.open({ dir, pod: 'p', maxFileBytes: 3000 });
    expect(osThreads()).toBeGreaterThan(threadsBefore);
    for (let i = 0; i < 6; i++) await writer.write(exchange(`/${i}`, randomBytes(1000)));
    expect(files().filter((f) => f.endsWith('.open'))).toHaveLength(1);
    await writer.close();
    const names = files();
    expect(names.length).toBeGreaterThanOrEqual(3);
    expect(names.every((n) => n.endsWith('.warc.gz'))).toBe(true);
    for (const name of names) expect(statSync(join(dir, name)).size).toBeLessThanOrEqual(3000);
    expect(writer.stats().filesClosed).toBe(names.length);
    // close() resolves once the thread has exited: none is left behind.
    expect(osThreads()).toBe(threadsBefore);
    await expect(writer.write(exchange('/late', Buffer.from('x')))).rejects.toMatchObject({
      code: WarcErrorCode.CLOSED,
    });
  });

  it('rejects open when its thread cannot open the directory, with the writer error code', async () => {
    const file = join(dir, 'not-a-dir');
    writeFileSync(file, 'x');
    await expect(ThreadedWarcWriter.open({ dir: file, pod: 'p' })).rejects.toMatchObject({
      code: WarcErrorCode.IO,
    });
    await expect(ThreadedWarcWriter.open({ dir, pod: 'bad/pod' })).rejects.toMatchObject({
      code: WarcErrorCode.INVALID_OPTION,
    });
  });

  it('a thread that dies fails only the writes it held, is counted and reported; the next write repairs and goes on', async () => {
    const reported: WarcError[] = [];
    const writer = await ThreadedWarcWriter.open({
      dir,
      pod: 'p',
      threadHeapMb: 16,
      onThreadExit: (error) => reported.push(error),
    });
    const before = await writer.write(exchange('/before', Buffer.from('kept')));
    // 200,000 header fields are ~40 MB of strings on the thread's heap: it runs out of memory.
    const huge: HeaderPairs = Array.from({ length: 200_000 }, (_, i) => [
      `x-${i}`,
      'v'.repeat(100),
    ]);
    await expect(writer.write(exchange('/huge', Buffer.from('x'), huge))).rejects.toMatchObject({
      code: WarcErrorCode.THREAD,
      message: expect.stringMatching(/memory/),
    });
    expect(reported.map((e) => e.code)).toEqual([WarcErrorCode.THREAD]);
    const after = await writer.write(exchange('/after', Buffer.from('also kept')));
    expect(writer.stats()).toMatchObject({ threadCrashes: 1, errors: 1 });
    // The new thread repaired and closed the dead one's file before it opened its own.
    expect(writer.stats().repaired).toEqual([
      expect.objectContaining({ path: join(dir, `${before.file}.open`) }),
    ]);
    await writer.close();

    expect(files()).toEqual([before.file, after.file].sort());
    const responses = (
      await Promise.all(files().map((name) => warcioRecords(join(dir, name))))
    ).flatMap((records) => records.filter((r) => r.type === 'response'));
    expect(responses.map((r) => [r.url, r.payload.toString()])).toEqual([
      ['http://site.test/before', 'kept'],
      ['http://site.test/after', 'also kept'],
    ]);
    expect(reported).toHaveLength(1);
  });
});
