import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'services/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Integration suites each start their own redis-server processes; on a 2-core CI
    // machine two files at a time keeps timing-sensitive politeness assertions honest.
    maxWorkers: 2,
    pool: 'forks',
  },
});
