/**
 * Loads a page handler module (`--handler FILE`, env `HANDLER`): its default export must be a
 * function. `.mjs`/`.js`/`.cjs` load with plain `import()`. A TypeScript file (`.ts`/`.mts`)
 * loads through tsx's `tsImport`, found from the working directory first (the user's project)
 * and then from shardline's own install; without tsx the error says what to install.
 */
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CrawlerError, CrawlerErrorCode } from '../errors.js';
import type { PageHandler } from './page-api.js';

/** The handler exported by `file`. Throws one clear `SHARDLINE_ERR_CRAWLER_CONFIG` error otherwise. */
export async function loadHandler(file: string): Promise<PageHandler> {
  const path = resolve(file);
  const url = pathToFileURL(path).href;
  let module: { default?: unknown };
  try {
    module = /\.[mc]?tsx?$/.test(path)
      ? ((await (
          await tsImporter(file)
        )(url, import.meta.url)) as { default?: unknown })
      : ((await import(url)) as { default?: unknown });
  } catch (error) {
    if (error instanceof CrawlerError) throw error;
    throw new CrawlerError(
      CrawlerErrorCode.CONFIG,
      `handler ${file}: cannot load it (${(error as Error).message})`,
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
