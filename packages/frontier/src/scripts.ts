/**
 * Loads `lua/<command>-<numkeys>.lua`, expands `--@include "name"` lines with
 * `lua/includes/<name>.lua`, and defines each script once per ioredis client with
 * `defineCommand` under a versioned name (ioredis sends EVALSHA and falls back to EVAL
 * on NOSCRIPT, on every node of a Cluster). Only {@link RedisFrontier} calls them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Cluster, Redis, Result } from 'ioredis';

/** Bump when a script's KEYS/ARGV/reply contract changes, so old and new never mix. */
const VERSION = 'slv2';

const luaDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'lua');

/** The scripts, by command name (the file name without `-<numkeys>.lua`). */
export const SCRIPT_COMMANDS = {
  enqueue: `${VERSION}Enqueue`,
  claim: `${VERSION}Claim`,
  heartbeat: `${VERSION}Heartbeat`,
  complete: `${VERSION}Complete`,
  fail: `${VERSION}Fail`,
  release: `${VERSION}Release`,
  reclaim: `${VERSION}Reclaim`,
  schedule: `${VERSION}Schedule`,
  'set-policy': `${VERSION}SetPolicy`,
  pause: `${VERSION}Pause`,
  'requeue-dead': `${VERSION}RequeueDead`,
  'index-update': `${VERSION}IndexUpdate`,
  'due-take': `${VERSION}DueTake`,
} as const;

type Arg = string | number;
type ScriptFn<Context extends { type: 'default' | 'pipeline' }> = (
  ...args: Arg[]
) => Result<unknown, Context>;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    slv2Enqueue: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv2Claim: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv2Heartbeat: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv2Complete: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv2Fail: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv2Release: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv2Reclaim: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv2Schedule: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv2SetPolicy: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv2Pause: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv2RequeueDead: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv2IndexUpdate: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv2DueTake: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
  }
}

/** One of the frontier's script commands. */
export type ScriptCommand = (typeof SCRIPT_COMMANDS)[keyof typeof SCRIPT_COMMANDS];

interface LoadedScript {
  command: ScriptCommand;
  numberOfKeys: number;
  lua: string;
}

function expand(source: string, seen: Set<string>): string {
  return source.replace(/^--@include "([a-z-]+)"\s*$/gm, (_line, name: string) => {
    // Each include once per script: they define locals that must not be redefined.
    if (seen.has(name)) return '';
    seen.add(name);
    return expand(readFileSync(join(luaDir, 'includes', `${name}.lua`), 'utf8'), seen);
  });
}

let cache: LoadedScript[] | undefined;

/** Reads and expands every script (once per process). */
export function loadScripts(): LoadedScript[] {
  if (cache) return cache;
  const scripts: LoadedScript[] = [];
  for (const file of readdirSync(luaDir).sort()) {
    const match = /^([a-z-]+)-(\d+)\.lua$/.exec(file);
    if (!match) continue;
    const name = match[1] as keyof typeof SCRIPT_COMMANDS;
    const command = SCRIPT_COMMANDS[name];
    if (!command) throw new Error(`lua/${file} has no entry in SCRIPT_COMMANDS`);
    const lua = expand(readFileSync(join(luaDir, file), 'utf8'), new Set());
    scripts.push({ command, numberOfKeys: Number(match[2]), lua });
  }
  cache = scripts;
  return scripts;
}

const defined = new WeakSet<Redis | Cluster>();

/** Defines every frontier script on a client (idempotent per client). */
export function defineScripts(client: Redis | Cluster): void {
  if (defined.has(client)) return;
  for (const script of loadScripts()) {
    client.defineCommand(script.command, {
      numberOfKeys: script.numberOfKeys,
      lua: script.lua,
    });
  }
  defined.add(client);
}
