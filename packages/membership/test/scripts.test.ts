import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScripts, SCRIPT_COMMANDS } from '../src/scripts.js';

const luaDir = join(import.meta.dirname, '..', 'lua');

describe('membership scripts', () => {
  it('has one file per command, each loaded with its key count', () => {
    const scripts = loadScripts();
    expect(scripts.map((s) => s.command).sort()).toEqual(Object.values(SCRIPT_COMMANDS).sort());
    for (const s of scripts) expect(s.lua).not.toMatch(/--@include/);
    // `time` comes from the frontier's fragments, `view` from this package's own.
    const heartbeat = scripts.find((s) => s.command === SCRIPT_COMMANDS.heartbeat)!.lua;
    expect(heartbeat.match(/local function now_ms\(/g)).toHaveLength(1);
  });

  it('names every KEYS[i] in its header, and takes no time from the caller', () => {
    for (const file of readdirSync(luaDir).filter((f) => f.endsWith('.lua'))) {
      const source = readFileSync(join(luaDir, file), 'utf8');
      const numKeys = Number(/-(\d+)\.lua$/.exec(file)![1]);
      const header = source.slice(0, source.indexOf(']]'));
      for (let i = 1; i <= numKeys; i++) expect(header, file).toContain(`KEYS[${i}]`);
      expect(header, file).not.toContain(`KEYS[${numKeys + 1}]`);
      // Times are computed from Redis TIME inside scripts; ARGV carries durations only.
      expect(header, file).not.toMatch(/ARGV\[\d+\][^\n]*\b(now|timestamp|time of)\b/i);
    }
  });
});
