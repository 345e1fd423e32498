/**
 * Loads `lua/<command>-<numkeys>.lua`, expands `--@include "name"` lines from
 * `lua/includes/`, then from the frontier's (`time`), and defines each script once per ioredis client with `defineCommand`
 * under a versioned name (EVALSHA with a NOSCRIPT fallback, on every Cluster node). Same
 * loader as `@shardline/frontier` (its `luaScripts`); only this package's classes call them.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FRONTIER_LUA_INCLUDES, luaScripts } from '@shardline/frontier';
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
  }
}

/** One of the membership script commands. */
export type ScriptCommand = (typeof SCRIPT_COMMANDS)[keyof typeof SCRIPT_COMMANDS];

// Own fragments first (`view`), then the frontier's (`time`: one Redis clock for both).
const scripts = luaScripts(luaDir, SCRIPT_COMMANDS, {
  includeDirs: [join(luaDir, 'includes'), FRONTIER_LUA_INCLUDES],
});

/** Reads and expands every script (once per process). */
export const loadScripts = scripts.load;

/** Defines every membership script on a client (idempotent per client). */
export const defineScripts = scripts.define;

type ScriptHost = Record<ScriptCommand, (...args: Arg[]) => Promise<unknown>>;

/** Calls one script by command name on a client on which {@link defineScripts} ran. */
export function callScript(
  client: Redis | Cluster,
  command: ScriptCommand,
  args: Arg[],
): Promise<unknown> {
  return (client as unknown as ScriptHost)[command](...args);
}
