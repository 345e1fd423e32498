import { describe, expect, it } from 'vitest';
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
