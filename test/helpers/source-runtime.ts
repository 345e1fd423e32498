/**
 * How the repository runs its TypeScript sources in a child process. Users run the compiled
 * `dist/` (the `shardline` bin, `node services/crawler/dist/main.js`, the Docker image); tests
 * and benches run the sources without a build, so every place that spawns a shardline process
 * for them takes its node flags or environment from here.
 *
 * The `@shardline/source` export condition (each workspace's package.json, and the CLI's
 * `#main` import) resolves `@shardline/*` to `src/index.ts`; tsx's loader compiles the `.ts`
 * files on the fly. vitest (vitest.config.ts) and `npm run typecheck` (tsconfig.json) use the
 * same condition.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

/** The export condition under which `@shardline/*` resolves to its TypeScript sources. */
export const SOURCE_CONDITION = '@shardline/source';

// An absolute URL rather than the bare `tsx`: a child started in a temp dir (a local cluster's
// data dir, a test's cwd) must still find the loader.
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** Node flags that run the sources: `node ...SOURCE_NODE_FLAGS file.ts`. */
export const SOURCE_NODE_FLAGS: readonly string[] = [
  `--conditions=${SOURCE_CONDITION}`,
  `--import=${TSX_LOADER}`,
];

/**
 * `env` (default `process.env`) with {@link SOURCE_NODE_FLAGS} added to `NODE_OPTIONS`, for a
 * child that starts node processes of its own: `shardline up` spawns its supervisor and pods as
 * `node bin/shardline.js …` without flags, and they inherit the environment.
 */
export function sourceEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const inherited = env.NODE_OPTIONS ? ` ${env.NODE_OPTIONS}` : '';
  return { ...env, NODE_OPTIONS: `${SOURCE_NODE_FLAGS.join(' ')}${inherited}` };
}
