/**
 * Loads `lua/<command>-<numkeys>.lua`, expands `--@include "name"` lines with
 * `lua/includes/<name>.lua`, and defines each script once per ioredis client with
 * `defineCommand` under a versioned name (ioredis sends EVALSHA and falls back to EVAL
 * on NOSCRIPT, on every node of a Cluster). Only {@link RedisFrontier} calls them.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Result } from 'ioredis';
import { buildLibrary, type ScriptLibrary } from './lua-library.js';
import { luaScripts } from './lua-scripts.js';

/** Bump when a script's KEYS/ARGV/reply contract changes, so old and new never mix. */
const VERSION = 'slv3';

const luaDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'lua');

/** The scripts, by command name (the file name without `-<numkeys>.lua`). */
export const SCRIPT_COMMANDS = {
  enqueue: `${VERSION}Enqueue`,
  claim: `${VERSION}Claim`,
  heartbeat: `${VERSION}Heartbeat`,
  complete: `${VERSION}Complete`,
  fail: `${VERSION}Fail`,
  release: `${VERSION}Release`,
  'free-slot': `${VERSION}FreeSlot`,
  reclaim: `${VERSION}Reclaim`,
  schedule: `${VERSION}Schedule`,
  'set-policy': `${VERSION}SetPolicy`,
  pause: `${VERSION}Pause`,
  block: `${VERSION}Block`,
  'requeue-dead': `${VERSION}RequeueDead`,
  'index-update': `${VERSION}IndexUpdate`,
  'due-take': `${VERSION}DueTake`,
  spill: `${VERSION}Spill`,
  counters: `${VERSION}Counters`,
  'crawl-touch': `${VERSION}CrawlTouch`,
  'crawl-drop': `${VERSION}CrawlDrop`,
  'drop-host': `${VERSION}DropHost`,
} as const;

type Arg = string | number;
type ScriptFn<Context extends { type: 'default' | 'pipeline' }> = (
  ...args: Arg[]
) => Result<unknown, Context>;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    slv3Enqueue: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv3Claim: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv3Heartbeat: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv3Complete: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv3Fail: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv3Release: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv3FreeSlot: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv3Reclaim: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv3Schedule: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv3SetPolicy: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv3Pause: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv3Block: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv3RequeueDead: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv3IndexUpdate: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv3DueTake: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv3Spill: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv3Counters: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv3CrawlTouch: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv3CrawlDrop: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
    slv3DropHost: ScriptFn<Context & { type: 'default' | 'pipeline' }>;
  }
}

/** One of the frontier's script commands. */
export type ScriptCommand = (typeof SCRIPT_COMMANDS)[keyof typeof SCRIPT_COMMANDS];

const scripts = luaScripts(luaDir, SCRIPT_COMMANDS);

/** Reads and expands every script (once per process). */
export const loadScripts = scripts.load;

/** Defines every frontier script on a client (idempotent per client). */
export const defineScripts = scripts.define;

let library: ScriptLibrary<ScriptCommand> | undefined;

/** Every frontier script as one function library (built once per process). */
export function frontierLibrary(): ScriptLibrary<ScriptCommand> {
  library ??= buildLibrary('shardline_frontier', scripts.load(), scripts.includeDirs);
  return library;
}
