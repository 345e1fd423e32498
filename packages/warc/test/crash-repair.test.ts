import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { SOURCE_NODE_FLAGS } from '../../../test/helpers/source-runtime.js';
import { ThreadedWarcWriter } from '../src/index.js';
import { membersOf, warcioRecords } from './warc-files.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it.each(['thread', 'inline'])(
  'after kill -9 mid-write (writer %s), a restart repairs the .open file: complete records only, readable',
  async (mode) => {
    dir = mkdtempSync(join(tmpdir(), 'warc-crash-'));
    const child = spawn(
      process.execPath,
      [...SOURCE_NODE_FLAGS, join(import.meta.dirname, 'write-until-killed.ts'), dir, mode],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('ready')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`writer exited early (${code})`)));
    });
    // Let it write a few more records, then kill it wherever it is.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGKILL');
    await exited;

    const [open] = readdirSync(dir);
    expect(open).toMatch(/^shardline-\d{17}-crash-00000\.warc\.gz\.open$/);
    const before = statSync(join(dir, open!)).size;

    const writer = await ThreadedWarcWriter.open({ dir, pod: 'crash' });
    const [report] = writer.stats().repaired;
    await writer.close();
    expect(report!.bytesBefore).toBe(before);
    expect(report!.bytesAfter).toBeLessThanOrEqual(before);
    const closed = open!.slice(0, -'.open'.length);
    expect(readdirSync(dir)).toEqual([closed]);
    expect(statSync(join(dir, closed)).size).toBe(report!.bytesAfter);

    // Every member is complete, and warcio reads the same records.
    const records = membersOf(join(dir, closed));
    expect(records.length).toBeGreaterThanOrEqual(3);
    expect(records[0]!.type).toBe('warcinfo');
    for (const record of records.slice(1)) {
      if (record.type === 'response') expect(record.payload.length).toBe(200_000);
    }
    const parsed = await warcioRecords(join(dir, closed));
    expect(parsed.map((r) => r.type)).toEqual(records.map((r) => r.type));
  },
  60_000,
);
