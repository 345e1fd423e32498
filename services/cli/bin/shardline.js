#!/usr/bin/env node
// The `shardline` command. `#main` (package.json "imports") is the compiled `dist/main.js`;
// the repository's tests and benches start node with `--conditions=@shardline/source --import
// tsx` (test/helpers/source-runtime.ts), under which it is `src/main.ts` instead.
const { run } = await import('#main');
process.exitCode = await run(process.argv);
