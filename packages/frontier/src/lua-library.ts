/**
 * The frontier's scripts as one Redis Function library (Redis 7.0+, `FUNCTION LOAD`, `FCALL`).
 * Why: an EVALSHA runs its whole chunk on every call, so a script redefines every included
 * helper (closures, constant tables) each time: ~6.6 µs per claim, ~16 µs per crawled page
 * (BENCHMARKS.md, "The floor under claim + complete"). A library runs its top level once, at
 * load: the includes are defined there, each script becomes a function whose body is the
 * script's own code. Same keys, arguments, replies and flags as the EVALSHA scripts.
 *
 * The library and function names carry a hash of the code, so pods of two versions in a
 * rolling upgrade each call their own (function names are global on a Redis server).
 */
import { createHash } from 'node:crypto';
import { expand, type LoadedScript } from './lua-scripts.js';

export interface LibraryFunction {
  name: string;
  numberOfKeys: number;
}

export interface ScriptLibrary<Command extends string> {
  name: string;
  /** The `FUNCTION LOAD` payload. */
  code: string;
  functions: ReadonlyMap<Command, LibraryFunction>;
}

/**
 * One library of `scripts`: every include once, in an order that keeps each script's own
 * order, then one `redis.register_function` per script.
 */
export function buildLibrary<Command extends string>(
  libraryPrefix: string,
  scripts: readonly LoadedScript<Command>[],
  includeDirs: readonly string[],
): ScriptLibrary<Command> {
  const order = includeOrder(scripts.map((s) => s.includes));
  const preamble = expand(includeDirs, order.map((name) => `--@include "${name}"`).join('\n'));
  assertNoRedefinition(preamble);
  const hash = createHash('sha1')
    .update(preamble)
    .update(scripts.map((s) => `${s.command}:${s.numberOfKeys}:${s.flags}:${s.body}`).join('\0'))
    .digest('hex')
    .slice(0, 12);
  const functions = new Map<Command, LibraryFunction>();
  const registrations = scripts.map((s) => {
    const name = `${s.command}_${hash}`;
    functions.set(s.command, { name, numberOfKeys: s.numberOfKeys });
    const flags = s.flags.map((f) => `'${f}'`).join(', ');
    // KEYS and ARGV as the callback's parameters: the bodies read them as EVAL scripts do.
    return [
      `redis.register_function{function_name = '${name}', flags = { ${flags} },`,
      'callback = function(KEYS, ARGV)',
      s.body,
      'end}',
    ].join('\n');
  });
  const name = `${libraryPrefix}_${hash}`;
  return {
    name,
    code: [`#!lua name=${name}`, preamble, ...registrations].join('\n'),
    functions,
  };
}

/** Every include once, each after all the includes any script names before it. */
function includeOrder(lists: readonly (readonly string[])[]): string[] {
  const before = new Map<string, Set<string>>();
  for (const list of lists) {
    list.forEach((name, i) => {
      const set = before.get(name) ?? new Set<string>();
      for (const earlier of list.slice(0, i)) set.add(earlier);
      before.set(name, set);
    });
  }
  const order: string[] = [];
  const visiting = new Set<string>();
  const visit = (name: string): void => {
    if (order.includes(name)) return;
    if (visiting.has(name))
      throw new Error(`lua includes: scripts include "${name}" in orders that conflict`);
    visiting.add(name);
    for (const earlier of before.get(name) ?? []) visit(earlier);
    visiting.delete(name);
    order.push(name);
  };
  for (const list of lists) for (const name of list) visit(name);
  return order;
}

/**
 * One chunk holds every include: a name two includes define would silently shadow the first
 * for scripts that only asked for it, so it is refused at build time.
 */
function assertNoRedefinition(preamble: string): void {
  const seen = new Set<string>();
  for (const m of preamble.matchAll(/^local (?:function ([\w]+)|([\w, ]+?)\s*=)/gm)) {
    const names = m[1] ? [m[1]] : (m[2] ?? '').split(',').map((n) => n.trim());
    for (const n of names) {
      if (seen.has(n)) throw new Error(`lua includes: "${n}" is defined by two includes`);
      seen.add(n);
    }
  }
}
