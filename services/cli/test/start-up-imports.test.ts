/**
 * The `shardline` command loads the crawler pod and the API server only when a command runs
 * them: every command module is imported to build the program, so one static import of a
 * package root would make `shardline --help` or `shardline stats` load undici, the pipeline
 * and the dashboard (about 2 s of start-up on a loaded machine instead of 0.6 s). Value
 * imports go through the light entries (`@shardline/crawler/settings`, `@shardline/api/reader`);
 * the roots are for `import type` and for `await import(…)` inside an action.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = new URL('../src/', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Static value imports (not `import type`) of the heavy package roots in `text`. */
function heavyStatements(text: string): string[] {
  const found = text.match(
    /^import\s+(?!type\b)[^;]*?from\s+'@shardline\/(crawler|api|urlfrontier)';/gms,
  );
  return (found ?? []).map((statement) => statement.split('\n')[0] ?? statement);
}

function heavyImports(path: string): string[] {
  return heavyStatements(readFileSync(path, 'utf8')).map(
    (line) => `${relative(SRC, path)}: ${line}`,
  );
}

describe('shardline start-up', () => {
  it('imports no package root that loads the pod or the API server', () => {
    expect(sources(SRC).flatMap(heavyImports)).toEqual([]);
  });

  it('tells a value import of a root from a type import or a light entry (the check itself)', () => {
    const text = [
      "import { runPod } from '@shardline/crawler';",
      "import type { CrawlerPod } from '@shardline/crawler';",
      "import { StatsReader } from '@shardline/api/reader';",
      "import {\n  startApi,\n} from '@shardline/api';",
    ].join('\n');
    expect(heavyStatements(text)).toEqual([
      "import { runPod } from '@shardline/crawler';",
      'import {',
    ]);
  });
});
