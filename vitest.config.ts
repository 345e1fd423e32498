import { configDefaults, defineConfig } from 'vitest/config';
import { SOURCE_CONDITION } from './test/helpers/source-runtime.js';

// The multi-process chaos crawl runs alone: `npm run test:chaos`, which `npm test` runs after
// every other file. Its pauses measure claim latency on two busy cores; beside another
// multi-process file they measured that file's load (unmoved domains paused 1.6-2.1 s at a
// join, against 0.6 s alone).
const CHAOS = ['test/chaos.test.ts'];
// Files left out of `npm test`, run only by `npm run test:chaos` (none at the moment).
const ON_DEMAND: string[] = [];
const chaos = process.env.SHARDLINE_CHAOS === '1';

export default defineConfig({
  // Tests run on the sources, no build first: `@shardline/*` resolves to `src/index.ts`
  // through this export condition (dist/ is what plain node and users get).
  ssr: { resolve: { conditions: [SOURCE_CONDITION] } },
  test: {
    include: chaos
      ? [...CHAOS, ...ON_DEMAND]
      : ['packages/*/test/**/*.test.ts', 'services/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: chaos ? configDefaults.exclude : [...configDefaults.exclude, ...CHAOS, ...ON_DEMAND],
    testTimeout: 60_000,
    hookTimeout: 300_000,
    // Integration suites each start their own redis-server processes; on a 2-core CI
    // machine two files at a time keeps timing-sensitive politeness assertions honest.
    maxWorkers: 2,
    pool: 'forks',
    // Fails the run when a test leaves a throwaway redis-server running (and kills it).
    globalSetup: ['test/helpers/redis-leaks.ts'],
  },
});
