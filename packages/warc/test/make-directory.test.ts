/**
 * `makeDirectory` and the writers that use it end on every path: under procfs Node 20's own
 * recursive mkdir spins for ever (a WARC writer opened on `/proc/…` never settled).
 */
import { existsSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDirectory } from '../src/make-directory.js';
import { ThreadedWarcWriter } from '../src/threaded-warc-writer.js';
import { WarcWriter } from '../src/warc-writer.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'make-dir-'));
  writeFileSync(join(dir, 'a-file'), 'x');
  symlinkSync(join(dir, 'nowhere'), join(dir, 'dangling'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('makeDirectory', () => {
  it('creates the missing levels and leaves an existing directory alone', () => {
    makeDirectory(join(dir, 'x', 'y', 'z'));
    expect(statSync(join(dir, 'x', 'y', 'z')).isDirectory()).toBe(true);
    makeDirectory(join(dir, 'x', 'y', 'z'));
    makeDirectory(join(dir, 'x'));
    expect(statSync(join(dir, 'x', 'y', 'z')).isDirectory()).toBe(true);
  });

  it('refuses a file in the way, or a dangling link, naming the level', () => {
    expect(() => makeDirectory(join(dir, 'a-file', 'sub'))).toThrow(
      expect.objectContaining({ code: 'ENOTDIR', path: join(dir, 'a-file') }),
    );
    expect(() => makeDirectory(join(dir, 'dangling', 'sub'))).toThrow(
      expect.objectContaining({ code: 'ENOTDIR', path: join(dir, 'dangling') }),
    );
  });
});

describe.runIf(existsSync('/proc/self'))('under procfs', () => {
  it('makeDirectory throws at once', () => {
    expect(() => makeDirectory('/proc/shardline-test/warc')).toThrow(
      expect.objectContaining({ code: 'ENOENT' }),
    );
  });

  it('a WARC writer, on its thread or not, refuses to open instead of never settling', async () => {
    await expect(WarcWriter.open({ dir: '/proc/shardline-test', pod: 'p' })).rejects.toMatchObject({
      message: expect.stringMatching(/cannot open WARC directory \/proc\/shardline-test: ENOENT/),
    });
    await expect(
      ThreadedWarcWriter.open({ dir: '/proc/shardline-test', pod: 'p' }),
    ).rejects.toMatchObject({ message: expect.stringMatching(/ENOENT/) });
  }, 20_000);
});
