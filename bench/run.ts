/**
 * `npm run bench [-- filter...]`: runs every `packages/*\/bench/*.bench.ts` and
 * `services/*\/bench/*.bench.ts` (and the test web's own `test/web/*.bench.ts`) one after another, each in its own process so one
 * benchmark's heap and Redis never colour the next, on the sources (tsx, and the
 * `@shardline/source` condition for `@shardline/*`). A filter keeps the files whose path
 * contains it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { SOURCE_NODE_FLAGS } from '../test/helpers/source-runtime.js';

const root = join(import.meta.dirname, '..');
const filters = process.argv.slice(2);

const files: string[] = [];
for (const group of ['packages', 'services']) {
  for (const name of readdirSync(join(root, group)).sort()) {
    const dir = join(root, group, name, 'bench');
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir).sort()) {
      if (file.endsWith('.bench.ts')) files.push(join(dir, file));
    }
  }
}
for (const file of readdirSync(join(root, 'test', 'web')).sort()) {
  if (file.endsWith('.bench.ts')) files.push(join(root, 'test', 'web', file));
}

const selected = files.filter(
  (file) => filters.length === 0 || filters.some((f) => relative(root, file).includes(f)),
);
if (selected.length === 0) {
  console.error(`no benchmark matches ${filters.join(' ')}`);
  process.exit(1);
}
let failed = 0;
for (const file of selected) {
  console.log(`\n=== ${relative(root, file)} ===`);
  const result = spawnSync(process.execPath, [...SOURCE_NODE_FLAGS, '--expose-gc', file], {
    stdio: 'inherit',
    cwd: root,
  });
  if (result.status !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);
