import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildLibrary } from '../src/lua-library.js';
import { FRONTIER_LUA_INCLUDES, luaScripts } from '../src/lua-scripts.js';
import { loadScripts, SCRIPT_COMMANDS } from '../src/scripts.js';

describe('loadScripts', () => {
  const scripts = loadScripts();

  it('loads one script per command, key count from the file name', () => {
    expect(scripts.map((s) => s.command).sort()).toEqual(Object.values(SCRIPT_COMMANDS).sort());
    expect(scripts.find((s) => s.command === SCRIPT_COMMANDS.enqueue)?.numberOfKeys).toBe(3);
    expect(scripts.find((s) => s.command === SCRIPT_COMMANDS.heartbeat)?.numberOfKeys).toBe(2);
  });

  it('expands every include, once', () => {
    for (const s of scripts) {
      expect(s.lua).not.toMatch(/--@include/);
      expect(s.lua.match(/local function now_ms\(/g)?.length ?? 0).toBeLessThanOrEqual(1);
    }
    const claim = scripts.find((s) => s.command === SCRIPT_COMMANDS.claim)!.lua;
    expect(claim).toContain('local function lease_requeue(');
    expect(claim).toContain('local function dead_letter(');
  });

  it('defines every helper it calls before the call, as EVALSHA runs it alone', () => {
    // The function library defines every include for every script, so a script missing an
    // include still works through FCALL and fails only on EVALSHA (Redis without FUNCTION),
    // at run time, at its first call of the helper.
    const helpers = new Set<string>();
    for (const file of readdirSync(FRONTIER_LUA_INCLUDES)) {
      const text = readFileSync(join(FRONTIER_LUA_INCLUDES, file), 'utf8');
      for (const m of text.matchAll(/^local function (\w+)/gm)) helpers.add(m[1]!);
    }
    expect(helpers).toContain('queue_push');
    const missing: string[] = [];
    for (const s of scripts) {
      const code = s.lua
        .replace(/--\[\[[\s\S]*?\]\]/g, (c) => ' '.repeat(c.length))
        .replace(/--[^\n]*/g, (c) => ' '.repeat(c.length));
      for (const name of helpers) {
        const defined = code.indexOf(`local function ${name}(`);
        const used = code.search(new RegExp(`\\b${name}\\(`));
        if (used >= 0 && (defined < 0 || used < defined)) missing.push(`${s.command}: ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('takes time from Redis TIME only', () => {
    for (const s of scripts) {
      if (/now_ms\(\)/.test(s.lua)) expect(s.lua).toContain("redis.call('TIME')");
    }
  });

  it('documents KEYS and ARGV in every header', () => {
    for (const s of scripts) {
      const header = s.lua.slice(0, s.lua.indexOf(']]'));
      expect(header).toMatch(/KEYS\[1\]/);
      expect(header).toMatch(/Returns/);
    }
  });
});

describe('luaScripts', () => {
  it('takes includes from the first directory that has them, and names a missing one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sl-lua-'));
    try {
      for (const d of ['a', 'b', 'lua']) mkdirSync(join(dir, d));
      writeFileSync(join(dir, 'a', 'x.lua'), 'local from_a = 1\n');
      writeFileSync(join(dir, 'b', 'x.lua'), 'local from_b = 1\n');
      writeFileSync(join(dir, 'b', 'y.lua'), 'local y_from_b = 1\n');
      writeFileSync(join(dir, 'lua', 'probe-1.lua'), '--@include "x"\n--@include "y"\nreturn 1\n');
      const dirs = [join(dir, 'a'), join(dir, 'b')];
      const [probe] = luaScripts(
        join(dir, 'lua'),
        { probe: 'probe' },
        { includeDirs: dirs },
      ).load();
      expect(probe!.lua).toContain('from_a');
      expect(probe!.lua).not.toContain('local from_b');
      expect(probe!.lua).toContain('y_from_b');
      const missing = luaScripts(join(dir, 'lua'), { probe: 'probe' }, { includeDirs: [dirs[0]!] });
      expect(() => missing.load()).toThrow(/--@include "y": no y\.lua in/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('buildLibrary', () => {
  /** Scripts `name-1.lua` → source in a temp lua dir with `includes`, as one library. */
  function library(files: Record<string, string>, includes: Record<string, string>) {
    const dir = mkdtempSync(join(tmpdir(), 'sl-lib-'));
    try {
      mkdirSync(join(dir, 'includes'));
      for (const [name, text] of Object.entries(includes)) {
        writeFileSync(join(dir, 'includes', `${name}.lua`), text);
      }
      const commands: Record<string, string> = {};
      for (const [name, text] of Object.entries(files)) {
        writeFileSync(join(dir, `${name}-1.lua`), text);
        commands[name] = name;
      }
      const scripts = luaScripts(dir, commands);
      return buildLibrary('t', scripts.load(), scripts.includeDirs);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('defines every include once, before any script, in an order every script agrees with', () => {
    const lib = library(
      {
        a: '#!lua flags=allow-oom\n--@include "time"\n--@include "host"\nreturn now() + host()\n',
        b: '#!lua\n--@include "host"\n--@include "seen"\nreturn seen()\n',
        c: '--@include "time"\n--@include "seen"\nreturn 1\n',
      },
      {
        time: 'local function now() return 1 end\n',
        host: 'local function host() return now() end\n',
        seen: 'local function seen() return host() end\n',
      },
    );
    const at = (text: string) => lib.code.indexOf(text);
    expect(lib.code.startsWith(`#!lua name=${lib.name}\n`)).toBe(true);
    expect(at('local function now(')).toBeLessThan(at('local function host('));
    expect(at('local function host(')).toBeLessThan(at('local function seen('));
    expect(at('local function seen(')).toBeLessThan(at('redis.register_function'));
    expect(lib.code.match(/local function host\(/g)).toHaveLength(1);
    const a = lib.functions.get('a')!;
    expect(a).toEqual({ name: `a_${lib.name.slice(2)}`, numberOfKeys: 1 });
    expect(lib.code).toContain(`function_name = '${a.name}', flags = { 'allow-oom' }`);
    // No shebang in a body, no include line left.
    expect(lib.code.match(/#!lua/g)).toHaveLength(1);
    expect(lib.code).not.toMatch(/--@include/);
  });

  it('names change with the code, so two versions never call each other', () => {
    const inc = { time: 'local function now() return 1 end\n' };
    const one = library({ a: '--@include "time"\nreturn now()\n' }, inc);
    const two = library({ a: '--@include "time"\nreturn now() + 1\n' }, inc);
    expect(one.name).not.toBe(two.name);
    expect(one.functions.get('a')!.name).not.toBe(two.functions.get('a')!.name);
    expect(library({ a: '--@include "time"\nreturn now()\n' }, inc).name).toBe(one.name);
  });

  it('refuses includes asked for in conflicting orders, and a name two includes define', () => {
    const inc = { x: 'local function x() end\n', y: 'local function y() end\n' };
    expect(() =>
      library(
        { a: '--@include "x"\n--@include "y"\n', b: '--@include "y"\n--@include "x"\n' },
        inc,
      ),
    ).toThrow(/orders that conflict/);
    expect(() =>
      library({ a: '--@include "x"\n--@include "z"\n' }, { ...inc, z: 'local LIMIT, x = 1, 2\n' }),
    ).toThrow(/"x" is defined by two includes/);
  });
});
