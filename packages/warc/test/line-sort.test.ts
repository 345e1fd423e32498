/**
 * The CDXJ sort with bounded memory: lines past `runLines` go to sorted runs on disk that are
 * merged at the end. The merged order is byte order (`LC_ALL=C sort`), the same as sorting in
 * memory, and no run is left on disk.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WarcWriter, writeCdxj } from '../src/index.js';
import { LineSorter } from '../src/line-sort.js';

const dirs: string[] = [];
const tempDir = (stem: string) => {
  const dir = mkdtempSync(join(tmpdir(), stem));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const byBytes = (lines: string[]) =>
  lines
    .map((l) => Buffer.from(l))
    .sort(Buffer.compare)
    .map((b) => b.toString());

describe('LineSorter', () => {
  it('merges runs spilled to disk into byte order and removes them', async () => {
    const tmp = tempDir('sort-runs-');
    // Byte order, not JavaScript's UTF-16 order: U+1F600 comes before U+FF5E by code units,
    // after it by UTF-8 bytes.
    const lines = ['b 2\n', 'a\n', '\u{1F600}\n', '\uFF5E\n', 'a 1\n', 'B\n', 'ab\n', '~\n', 'a\n'];
    const sorter = new LineSorter({ runLines: 2, tmpDir: tmp });
    for (const line of lines) sorter.add(line);
    expect(readdirSync(tmp)).toHaveLength(1);
    const out: string[] = [];
    await sorter.drain((line) => out.push(line));
    expect(out).toEqual(byBytes(lines));
    expect(out.indexOf('\uFF5E\n')).toBeLessThan(out.indexOf('\u{1F600}\n'));
    expect(readdirSync(tmp)).toEqual([]);
  });

  it('removes its runs when the writer throws', async () => {
    const tmp = tempDir('sort-fail-');
    const sorter = new LineSorter({ runLines: 1, tmpDir: tmp });
    for (const line of ['c\n', 'b\n', 'a\n']) sorter.add(line);
    await expect(
      sorter.drain(() => {
        throw new Error('stdout closed');
      }),
    ).rejects.toThrow('stdout closed');
    expect(readdirSync(tmp)).toEqual([]);
  });
});

describe('writeCdxj sorted in runs', () => {
  it('prints the same index as the in-memory sort', async () => {
    const dir = tempDir('cdxj-runs-');
    const writer = await WarcWriter.open({ dir, pod: 'sort' });
    let file = '';
    for (const path of ['/m', '/c', '/x', '/a', '/q', '/b', '/z']) {
      const at = await writer.write({
        url: `http://runs.test${path}`,
        sentAtMs: Date.parse('2026-03-04T05:06:07Z'),
        request: { headers: [['user-agent', 'shardline/0.1']] },
        response: { status: 200, statusText: 'OK', headers: [], body: Buffer.from(path) },
      });
      file = join(dir, at.file);
    }
    await writer.close();
    const inMemory: string[] = [];
    expect(await writeCdxj([file], (l) => inMemory.push(l), { sort: true })).toBe(7);
    const tmp = tempDir('cdxj-tmp-');
    const inRuns: string[] = [];
    await writeCdxj([file], (l) => inRuns.push(l), { sort: true, sortRunLines: 2, tmpDir: tmp });
    expect(inRuns).toEqual(inMemory);
    expect(inRuns.map((l) => l.split(' ')[0])).toEqual(
      ['a', 'b', 'c', 'm', 'q', 'x', 'z'].map((p) => `test,runs)/${p}`),
    );
    expect(readdirSync(tmp)).toEqual([]);
  });
});
