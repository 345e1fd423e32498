/**
 * Loads a page handler module (`--handler FILE`, env `HANDLER`): its default export must be a
 * function. `.mjs`/`.js`/`.cjs` load with plain `import()`. A TypeScript file (`.ts`/`.mts`)
 * loads through tsx's `tsImport`, found from the working directory first (the user's project)
 * and then from shardline's own install; without tsx the error says what to install.
 */
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CrawlerError, CrawlerErrorCode, oneLine } from '../errors.js';
import type { PageHandler } from './page-api.js';

/** A TypeScript module, loaded through tsx. */
const TYPESCRIPT = /\.[mc]?tsx?$/;

/** The handler exported by `file`. Throws one clear `SHARDLINE_ERR_CRAWLER_CONFIG` error otherwise. */
export async function loadHandler(file: string): Promise<PageHandler> {
  const path = resolve(file);
  const url = pathToFileURL(path).href;
  const kind = fileKind(path);
  if (kind !== 'file') {
    throw new CrawlerError(
      CrawlerErrorCode.CONFIG,
      `handler ${file}: ${kind === 'missing' ? `no such file (${path})` : 'is a directory, not a module'}; give the path of a .mjs, .js or .ts module`,
    );
  }
  let module: { default?: unknown };
  try {
    module = TYPESCRIPT.test(path)
      ? ((await (
          await tsImporter(file)
        )(url, import.meta.url)) as { default?: unknown })
      : ((await import(url)) as { default?: unknown });
  } catch (error) {
    if (error instanceof CrawlerError) throw error;
    throw new CrawlerError(
      CrawlerErrorCode.CONFIG,
      `handler ${file}: cannot load it (${loadFailure(error, path, url)})`,
      { cause: error },
    );
  }
  // A CommonJS module's exports arrive as `default`; a transpiled ESM default may nest once.
  let handler = module.default;
  if (typeof handler === 'object' && handler !== null && 'default' in handler) {
    handler = (handler as { default: unknown }).default;
  }
  if (typeof handler !== 'function') {
    throw new CrawlerError(
      CrawlerErrorCode.CONFIG,
      `handler ${file}: its default export must be a function async (page, ctx) => {…}; got ${typeof handler}`,
    );
  }
  return handler as PageHandler;
}

function fileKind(path: string): 'file' | 'directory' | 'missing' {
  try {
    return statSync(path).isDirectory() ? 'directory' : 'file';
  } catch {
    return 'missing';
  }
}

/**
 * Why the import failed, on one line and where in the file. A JavaScript SyntaxError carries no
 * location in Node 20's ESM loader: `node --check` prints it (`/path/h.mjs:3`), run only then.
 * A throw at the module's top level is located by its first frame in the file.
 */
function loadFailure(error: unknown, path: string, url: string): string {
  if (!(error instanceof Error)) return String(error);
  const message = oneLine(error.message);
  if (error.name === 'SyntaxError' && !TYPESCRIPT.test(path)) {
    const check = spawnSync(process.execPath, ['--check', path], {
      encoding: 'utf8',
      timeout: 10_000,
    });
    const where = /^(.+:\d+)$/m.exec(check.stderr ?? '')?.[1];
    if (where) return `SyntaxError at ${basename(where)}: ${message}`;
  }
  const frame = error.stack?.split('\n').find((line) => line.includes(`${url}:`));
  const at = frame ? /:(\d+):(\d+)\)?$/.exec(frame) : null;
  return at ? `${message}, at ${basename(path)}:${at[1]}:${at[2]}` : message;
}

type TsImport = (specifier: string, parent: string) => Promise<unknown>;

async function tsImporter(file: string): Promise<TsImport> {
  for (const base of [join(process.cwd(), 'package.json'), import.meta.url]) {
    let api: string;
    try {
      // tsx's ESM entry of its API (`require.resolve` would pick the CommonJS one).
      const manifest = createRequire(base).resolve('tsx/package.json');
      api = join(dirname(manifest), 'dist', 'esm', 'api', 'index.mjs');
    } catch {
      continue; // Not installed there: try the next place.
    }
    const { tsImport } = (await import(pathToFileURL(api).href)) as { tsImport: TsImport };
    return tsImport;
  }
  throw new CrawlerError(
    CrawlerErrorCode.CONFIG,
    `handler ${file}: a TypeScript handler needs tsx (npm install tsx in your project), or compile it to .mjs`,
  );
}
