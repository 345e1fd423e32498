/**
 * `mkdir -p` that always ends. Node 20's recursive `mkdir` spins for ever (a core at 100 %,
 * the promise never settling, `mkdirSync` freezing the event loop so not even a signal is
 * handled) under procfs, which answers ENOENT instead of EPERM for a child of an existing
 * directory: `--warc-dir /proc/warc` hung a pod that way. Here each missing level is created
 * once, from the top down, and a level the file system refuses is the error.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Creates `path` and its missing parents; throws the first refusal (ENOTDIR: something else is there). */
export function makeDirectory(path: string): void {
  const missing: string[] = [];
  for (let at = resolve(path); !isDirectory(at); at = dirname(at)) {
    missing.push(at);
    if (dirname(at) === at) break;
  }
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (!isDirectory(dir)) {
        throw Object.assign(new Error(`ENOTDIR: ${dir} exists and is not a directory`), {
          code: 'ENOTDIR',
          path: dir,
        });
      }
    }
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
