/**
 * Loads `lua/<command>-<numkeys>.lua`, expands `--@include "name"` lines from
 * `lua/includes/`, and defines each script once per ioredis client with `defineCommand`
 * under a versioned name (EVALSHA with a NOSCRIPT fallback, on every Cluster node). Same
 * approach as `@shardline/frontier`; only this package's classes call them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Cluster, Redis, Result } from 'ioredis';

/** Bump when a script's KEYS/ARGV/reply contract changes, so old and new never mix. */
const VERSION = 'slmv1';

const luaDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'lua');

/** The scripts, by command name (the file name without `-<numkeys>.lua`). */
export const SCRIPT_COMMANDS = {
  heartbeat: `${VERSION}Heartbeat`,
  view: `${VERSION}View`,
  leave: `${VERSION}Leave`,
  'reclaim-claim': `${VERSION}ReclaimClaim`,
  'reclaim-done': `${VERSION}ReclaimDone`,
  'reclaim-unlock': `${VERSION}ReclaimUnlock`,
  'sweep-claim': `${VERSION}SweepClaim`,
  'mod-tick': `${VERSION}ModTick`,
  'mod-reclaim-claim': `${VERSION}ModReclaimClaim`,
} as const;

type Arg = string | number;
type ScriptFn<Context extends { type: 'default' | 'pipeline' }> = (
  ...args: Arg[]
) => Result<unknown, Context>;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    slmv1Heartbeat: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slmv1View: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slmv1Leave: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slmv1ReclaimClaim: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slmv1ReclaimDone: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slmv1ReclaimUnlock: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slmv1SweepClaim: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slmv1ModTick: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slmv1ModReclaimClaim: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
  }
}

/** One of the membership script commands. */
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
    const command = SCRIPT_COMMANDS[match[1] as keyof typeof SCRIPT_COMMANDS];
    if (!command) throw new Error(`lua/${file} has no entry in SCRIPT_COMMANDS`);
    const lua = expand(readFileSync(join(luaDir, file), 'utf8'), new Set());
    scripts.push({ command, numberOfKeys: Number(match[2]), lua });
  }
  cache = scripts;
  return scripts;
}

const defined = new WeakSet<Redis | Cluster>();

/** Defines every membership script on a client (idempotent per client). */
export function defineScripts(client: Redis | Cluster): void {
  if (defined.has(client)) return;
  for (const script of loadScripts()) {
    client.defineCommand(script.command, { numberOfKeys: script.numberOfKeys, lua: script.lua });
  }
  defined.add(client);
}

type ScriptHost = Record<ScriptCommand, (...args: Arg[]) => Promise<unknown>>;

/** Calls one script by command name on a client on which {@link defineScripts} ran. */
export function callScript(
  client: Redis | Cluster,
  command: ScriptCommand,
  args: Arg[],
): Promise<unknown> {
  return (client as unknown as ScriptHost)[command](...args);
}
