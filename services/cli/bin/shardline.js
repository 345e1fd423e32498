#!/usr/bin/env node
// The `shardline` command. `#main` (package.json "imports") is the compiled `dist/main.js`;
// the repository's tests and benches start node with `--conditions=@shardline/source --import
// tsx` (test/helpers/source-runtime.ts), under which it is `src/main.ts` instead.
const { run } = await import('#main');
const code = await run(process.argv);
process.exitCode = code;
// The command is done: exit now, not when the event loop drains, so that what a page handler
// (`crawl --handler`) left running — a database pool, a timer, a call past its timeout —
// cannot hold a finished crawl open. The output is flushed first.
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
