/**
 * Where Redis spends its CPU, for the benchmarks. Redis reports it itself:
 *
 * - `INFO cpu` (`used_cpu_sys + used_cpu_user`): everything the server process spent, including
 *   reading and parsing requests and writing replies, which no command is charged for;
 * - `INFO commandstats` (calls and µs per command, after `CONFIG RESETSTAT`): the time inside each
 *   command, all Lua scripts lumped under `evalsha` (or `fcall`, the frontier's function library);
 * - `SLOWLOG` with a threshold of 0 µs: every command with its arguments and duration, so the
 *   `evalsha` time splits by script (its first argument is the SHA1 of the script's source, which
 *   {@link scriptNamesBySha} maps back to `lua/<name>-<keys>.lua`; an FCALL's first argument is
 *   the function's name, `slv3<Name>_<hash>`, for `lua/<name>-…`). Logging every command costs
 *   Redis CPU itself, so the split is taken in its own window after the clean one and applied to
 *   the clean window as shares.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { FRONTIER_LUA_INCLUDES, luaScripts } from '@shardline/frontier';
import type { Redis } from 'ioredis';

const root = join(import.meta.dirname, '..', '..');

/** SHA1 of every expanded script of every package (`packages/<p>/lua`) → `<package>/<name>`. */
export function scriptNamesBySha(): Map<string, string> {
  const names = new Map<string, string>();
  for (const pkg of readdirSync(join(root, 'packages')).sort()) {
    const luaDir = join(root, 'packages', pkg, 'lua');
    if (!existsSync(luaDir)) continue;
    const commands: Record<string, string> = {};
    for (const file of readdirSync(luaDir)) {
      const match = /^([a-z-]+)-\d+\.lua$/.exec(file);
      if (match) commands[match[1]!] = match[1]!;
    }
    const scripts = luaScripts(luaDir, commands, {
      includeDirs: [join(luaDir, 'includes'), FRONTIER_LUA_INCLUDES],
    });
    for (const s of scripts.load()) {
      names.set(createHash('sha1').update(s.lua).digest('hex'), `${pkg}/${s.command}`);
    }
  }
  return names;
}

/** Calls and µs inside commands, by command (or by script for `evalsha` and `fcall`). */
export type CommandTimes = Map<string, { calls: number; usec: number }>;

export interface RedisCpuWindow {
  /** `used_cpu_sys + used_cpu_user` over the window, µs. */
  cpuUs: number;
  /** `INFO commandstats` over the window. */
  commands: CommandTimes;
}

async function cpuUs(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const get = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (get('used_cpu_sys') + get('used_cpu_user')) * 1e6;
}

/** `INFO commandstats` now: calls and µs per command since the last `CONFIG RESETSTAT`. */
export async function commandStats(redis: Redis): Promise<CommandTimes> {
  const stats: CommandTimes = new Map();
  for (const m of (await redis.info('commandstats')).matchAll(
    /^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm,
  )) {
    stats.set(m[1]!, { calls: Number(m[2]), usec: Number(m[3]) });
  }
  return stats;
}

/** Starts a clean window: resets the command stats and reads the CPU counter. */
export async function startCpuWindow(redis: Redis): Promise<() => Promise<RedisCpuWindow>> {
  await redis.config('RESETSTAT');
  const start = await cpuUs(redis);
  return async () => {
    const end = await cpuUs(redis);
    return { cpuUs: end - start, commands: await commandStats(redis) };
  };
}

/**
 * Logs every command for `ms` (or until `ms` settles, when a promise) and returns the script time by script name (SHAs not known
 * as `sha:<first 8>`). The caller's own polling is in there too; it is tiny next to a pod.
 */
export async function scriptTimes(
  redis: Redis,
  ms: number | Promise<unknown>,
  names: Map<string, string>,
): Promise<CommandTimes> {
  const [, oldThreshold] = (await redis.config('GET', 'slowlog-log-slower-than')) as string[];
  const [, oldLen] = (await redis.config('GET', 'slowlog-max-len')) as string[];
  await redis.config('SET', 'slowlog-max-len', '1000000');
  await redis.slowlog('RESET');
  await redis.config('SET', 'slowlog-log-slower-than', '0');
  const times: CommandTimes = new Map();
  const drain = async () => {
    // GET and RESET in one transaction: nothing logged between them is lost.
    const [[, got]] = (await redis.multi().slowlog('GET', -1).slowlog('RESET').exec()) as [
      [null, [number, number, number, string[], string][]],
    ];
    const entries = got;
    for (const [, , usec, args, client] of entries) {
      // Commands a script runs are logged too, by the script's own client ('?:0'): the
      // script's time includes them already.
      if (client === '?:0') continue;
      const command = String(args[0]).toLowerCase();
      const name =
        command === 'evalsha'
          ? (names.get(String(args[1])) ?? `sha:${String(args[1]).slice(0, 8)}`)
          : command === 'fcall'
            ? functionScript(String(args[1]))
            : command;
      const t = times.get(name) ?? { calls: 0, usec: 0 };
      t.calls++;
      t.usec += usec;
      times.set(name, t);
    }
  };
  let done = false;
  if (typeof ms === 'number') setTimeout(() => (done = true), ms);
  else void ms.finally(() => (done = true));
  while (!done) {
    await new Promise((r) => setTimeout(r, 250));
    await drain();
  }
  await redis.config('SET', 'slowlog-log-slower-than', oldThreshold!);
  await drain();
  await redis.config('SET', 'slowlog-max-len', oldLen!);
  for (const admin of ['slowlog', 'config', 'info', 'multi', 'exec']) times.delete(admin);
  return times;
}

const isScript = (name: string) => name.includes('/') || name.startsWith('sha:');

/** `slv3FreeSlot_<hash>` (the frontier library's function) → `frontier/free-slot`. */
function functionScript(fn: string): string {
  const command = fn.replace(/^slv\d+/, '').replace(/_[0-9a-f]+$/, '');
  return `frontier/${command.replace(/(?<!^)([A-Z])/g, '-$1').toLowerCase()}`;
}

/** Script calls: EVALSHA and FCALL (`evalsha_ro`/`fcall_ro` are not used). */
const SCRIPT_CALLS = ['evalsha', 'fcall'];

/**
 * Redis CPU per page, by script and by command. First the calls clients send (scripts,
 * XADD, GET…): calls per page (from `split`, `splitPages` pages) and µs per page inside the
 * call (the clean window's script µs in the shares of `split`; other commands from `split`).
 * Then what no call is charged for (reading requests, writing replies), and the total from
 * `INFO cpu`. Then the Redis commands scripts run inside (`commandstats` counts those too),
 * which says what a script spends its time on.
 *
 * The µs inside a command are wall time (Redis times commands by the clock): on a loaded
 * machine they include time Redis was not on a core and may add up to more than `INFO cpu`;
 * the shares still hold, and the last column attributes the CPU by them then.
 */
export function cpuTable(
  clean: RedisCpuWindow,
  pages: number,
  split: CommandTimes,
  splitPages: number,
): string[] {
  const scripts = { calls: 0, usec: 0 };
  for (const name of SCRIPT_CALLS) {
    scripts.calls += clean.commands.get(name)?.calls ?? 0;
    scripts.usec += clean.commands.get(name)?.usec ?? 0;
  }
  let splitScriptUsec = 0;
  for (const [name, t] of split) if (isScript(name)) splitScriptUsec += t.usec;
  const top: { name: string; calls: number; usec: number }[] = [];
  for (const [name, t] of split) {
    top.push({
      name: isScript(name) ? `script ${name}` : name,
      calls: t.calls / splitPages,
      usec: isScript(name)
        ? splitScriptUsec === 0
          ? 0
          : (scripts.usec * t.usec) / splitScriptUsec / pages
        : t.usec / splitPages,
    });
  }
  top.sort((a, b) => b.usec - a.usec);
  const cpu = clean.cpuUs / pages;
  const inCalls = top.reduce((n, r) => n + r.usec, 0);
  // Quiet machine: in-call time ≤ CPU, the rest is I/O. Loaded: attribute CPU by share.
  const cpuScale = inCalls > cpu ? cpu / inCalls : 1;
  const out = [
    `Redis CPU per fetched page, by call (INFO cpu ${cpu.toFixed(1)} µs/page = ${Math.round(1e6 / cpu)} pages per Redis CPU-second)`,
    '  call                                  calls/page  µs/page in call  share  ≈ CPU µs/page',
  ];
  const line = (name: string, calls: string, usec: number, share: number, cpuUs: string) =>
    `  ${name.padEnd(37)} ${calls.padStart(10)} ${usec.toFixed(1).padStart(16)} ${`${share.toFixed(0)}%`.padStart(6)} ${cpuUs.padStart(14)}`;
  for (const r of top) {
    if (r.usec < 0.05) continue;
    out.push(
      line(
        r.name,
        r.calls.toFixed(3),
        r.usec,
        (100 * r.usec) / inCalls,
        (r.usec * cpuScale).toFixed(1),
      ),
    );
  }
  out.push(line('all calls', '', inCalls, 100, (inCalls * cpuScale).toFixed(1)));
  out.push(
    `  outside calls (reading requests, writing replies): ${cpuScale < 1 ? 'not separable: in-call wall time exceeds CPU (loaded machine)' : `${(cpu - inCalls).toFixed(1)} µs/page`}`,
  );
  let commands = 0;
  for (const [name, t] of clean.commands) if (!SCRIPT_CALLS.includes(name)) commands += t.calls;
  // Commands per page hardly move with the load, unlike µs: the figure to compare runs by.
  out.push(
    `  Redis commands per page, including those scripts run: ${(commands / pages).toFixed(1)} (commandstats); top 12 by time:`,
  );
  const inner = [...clean.commands]
    .filter(([name]) => !SCRIPT_CALLS.includes(name))
    .sort((a, b) => b[1].usec - a[1].usec)
    .slice(0, 12);
  for (const [name, t] of inner) {
    out.push(
      `    ${name.padEnd(18)} ${(t.calls / pages).toFixed(2).padStart(7)} calls/page ${(t.usec / pages).toFixed(1).padStart(7)} µs/page`,
    );
  }
  return out;
}
