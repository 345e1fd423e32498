import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CrawlerErrorCode } from '../../src/errors.js';
import { loadHandler } from '../../src/handlers/load-handler.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'handler-'));
  writeFileSync(
    join(dir, 'ok.mjs'),
    'export default async (page, ctx) => ctx.push({ url: page.url });\n',
  );
  writeFileSync(
    join(dir, 'typed.ts'),
    'const seen: string[] = [];\nexport default (page: { url: string }) => { seen.push(page.url); return seen.length; };\n',
  );
  writeFileSync(join(dir, 'none.mjs'), 'export const handler = () => {};\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('loadHandler', () => {
  it('loads the default export of an ES module', async () => {
    const pushed: unknown[] = [];
    const handler = await loadHandler(join(dir, 'ok.mjs'));
    await handler(
      { url: 'http://a.test/' } as never,
      { push: (i: unknown) => pushed.push(i) } as never,
    );
    expect(pushed).toEqual([{ url: 'http://a.test/' }]);
  });

  it('loads a TypeScript handler through tsx', async () => {
    const handler = await loadHandler(join(dir, 'typed.ts'));
    expect(handler({ url: 'http://a.test/' } as never, {} as never)).toBe(1);
  });

  it('refuses a module without a default function, or a missing file, in one line', async () => {
    await expect(loadHandler(join(dir, 'none.mjs'))).rejects.toMatchObject({
      code: CrawlerErrorCode.CONFIG,
      message: expect.stringMatching(/none\.mjs: its default export must be a function/),
    });
    await expect(loadHandler(join(dir, 'missing.mjs'))).rejects.toMatchObject({
      code: CrawlerErrorCode.CONFIG,
      message: expect.stringMatching(/missing\.mjs: no such file/),
    });
  });

  it('names a missing file or a directory for what it is, before importing anything', async () => {
    await expect(loadHandler(join(dir, 'missing.mjs'))).rejects.toMatchObject({
      message: `handler ${join(dir, 'missing.mjs')}: no such file (${join(dir, 'missing.mjs')}); give the path of a .mjs, .js or .ts module`,
    });
    await expect(loadHandler(dir)).rejects.toMatchObject({
      code: CrawlerErrorCode.CONFIG,
      message: `handler ${dir}: is a directory, not a module; give the path of a .mjs, .js or .ts module`,
    });
  });
});
