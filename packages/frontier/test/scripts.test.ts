import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { luaScripts } from '../src/lua-scripts.js';
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
