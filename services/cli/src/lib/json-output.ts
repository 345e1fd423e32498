import type { Writable } from 'node:stream';

/** Writes one JSON document (2-space indented, as `ring plan --json` does) and a newline. */
export function writeJson(out: Writable, document: unknown): void {
  out.write(`${JSON.stringify(document, null, 2)}\n`);
}
