/**
 * What `writeCdxj` (`shardline warc index`) does with inputs that are not WARC: it indexes
 * the WARC files given and refuses the others by name, rather than printing a line of
 * `undefined` for each and succeeding.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { WarcErrorCode, WarcWriter, writeCdxj } from '../src/index.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('writeCdxj inputs', () => {
  it('indexes the WARC files and names the ones that are not WARC', async () => {
    dir = mkdtempSync(join(tmpdir(), 'cdxj-inputs-'));
    const writer = await WarcWriter.open({ dir, pod: 'in' });
    const at = await writer.write({
      url: 'http://inputs.test/a',
      sentAtMs: Date.parse('2026-03-04T05:06:07Z'),
      request: { headers: [] },
      response: { status: 200, statusText: 'OK', headers: [], body: Buffer.from('a') },
    });
    await writer.close();
    const text = join(dir, 'passwd');
    writeFileSync(text, 'root:x:0:0:root:/root:/bin/bash\n');
    const gzipped = join(dir, 'notes.warc.gz');
    writeFileSync(gzipped, gzipSync('just some text, gzipped\n'));
    const garbage = join(dir, 'random.warc.gz');
    writeFileSync(garbage, Buffer.from([0x1f, 0x8b, 1, 2, 3, 4, 5, 6, 7, 8, 9]));

    const lines: string[] = [];
    const indexing = writeCdxj([text, join(dir, at.file), gzipped, garbage], (l) => lines.push(l));
    await expect(indexing).rejects.toMatchObject({
      code: WarcErrorCode.NOT_WARC,
      message: `${text}, ${gzipped}, ${garbage}: not a WARC file (it does not start with a WARC/1.x record); not indexed`,
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^test,inputs\)\/a \d{14} \{/);
  });
});
