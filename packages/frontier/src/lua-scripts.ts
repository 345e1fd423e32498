/**
 * The Lua loading both script packages share (frontier, membership): reads
 * `<luaDir>/<command>-<numkeys>.lua`, expands `--@include "name"` lines with `<name>.lua` from
 * the first of `includeDirs` that has it (default `<luaDir>/includes`), and defines each script once per ioredis client with
 * `defineCommand` under a versioned name (ioredis sends EVALSHA and falls back to EVAL on
 * NOSCRIPT, on every node of a Cluster).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Cluster, Redis } from 'ioredis';

export interface LoadedScript<Command extends string> {
  command: Command;
  numberOfKeys: number;
  /** The script as EVAL runs it: shebang, header, includes expanded, body. */
  lua: string;
  /** The shebang's flags (`allow-oom`, …), for the same function in a library. */
  flags: string[];
  /** The names of the includes it asks for, in its order. */
  includes: string[];
  /** The script without its shebang and include lines (the function's body). */
  body: string;
}

/** The frontier's shared Lua fragments (`time`, `host`, …), for other packages' scripts. */
export const FRONTIER_LUA_INCLUDES = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  'lua',
  'includes',
);

const INCLUDE_LINE = /^--@include "([a-z-]+)"\s*$/gm;

/** `source` with its `--@include` lines expanded (each include once: they define locals). */
export function expand(
  includeDirs: readonly string[],
  source: string,
  seen = new Set<string>(),
): string {
  return source.replace(INCLUDE_LINE, (_line, name: string) => {
    // Each include once per script: they define locals that must not be redefined.
    if (seen.has(name)) return '';
    seen.add(name);
    const file = includeDirs.map((d) => join(d, `${name}.lua`)).find((f) => existsSync(f));
    if (!file) throw new Error(`--@include "${name}": no ${name}.lua in ${includeDirs.join(', ')}`);
    return expand(includeDirs, readFileSync(file, 'utf8'), seen);
  });
}

/**
 * One package's scripts: `load()` reads and expands every file (once per process),
 * `define(client)` defines them on a client (idempotent per client).
 */
export function luaScripts<Commands extends Record<string, string>>(
  luaDir: string,
  commands: Commands,
  options: { includeDirs?: readonly string[] } = {},
): {
  load(): LoadedScript<Commands[keyof Commands]>[];
  define(client: Redis | Cluster): void;
  includeDirs: readonly string[];
} {
  const includeDirs = options.includeDirs ?? [join(luaDir, 'includes')];
  let cache: LoadedScript<Commands[keyof Commands]>[] | undefined;
  const defined = new WeakSet<Redis | Cluster>();
  const load = () => {
    if (cache) return cache;
    const scripts: LoadedScript<Commands[keyof Commands]>[] = [];
    for (const file of readdirSync(luaDir).sort()) {
      const match = /^([a-z-]+)-(\d+)\.lua$/.exec(file);
      if (!match) continue;
      const command = commands[match[1] as keyof Commands];
      if (!command) throw new Error(`lua/${file} has no entry in SCRIPT_COMMANDS`);
      const source = readFileSync(join(luaDir, file), 'utf8');
      const lua = expand(includeDirs, source, new Set());
      const shebang = /^#!lua(?: flags=(\S+))?\n/.exec(source);
      scripts.push({
        command,
        numberOfKeys: Number(match[2]),
        lua,
        flags: shebang?.[1]?.split(',') ?? [],
        includes: [...source.matchAll(INCLUDE_LINE)].map((m) => m[1] as string),
        body: source.slice(shebang?.[0].length ?? 0).replace(INCLUDE_LINE, ''),
      });
    }
    cache = scripts;
    return scripts;
  };
  return {
    load,
    includeDirs,
    define(client) {
      if (defined.has(client)) return;
      for (const script of load()) {
        client.defineCommand(script.command, {
          numberOfKeys: script.numberOfKeys,
          lua: script.lua,
        });
      }
      defined.add(client);
    },
  };
}
