/**
 * The settings checks of `FrontierWatch.start`: one warning line when Redis'
 * hash-max-listpack-value is below what a folded host queue needs, or hash-max-listpack-entries
 * below what archive hashes hold at scale (naming the setting and the value to set), none when
 * it serves, and no judgement (one debug line) when Redis refuses
 * CONFIG, as managed services do.
 */
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startRedis } from '../../../test/helpers/redis.js';
import { FrontierWatch } from '../src/frontier-watch.js';

interface Line {
  level: number;
  msg: string;
}

async function startWatch(args: string[]): Promise<{ lines: Line[]; stop: () => Promise<void> }> {
  const server = await startRedis({ args });
  const redis = new Redis(server.port, server.host);
  const lines: Line[] = [];
  const log = pino({ level: 'debug' }, { write: (s: string) => lines.push(JSON.parse(s)) });
  const watch = new FrontierWatch({
    frontier: { identity: async () => 'id', checkIdentity: async () => undefined },
    redis,
    pod: 'pod-a',
    intervalMs: 60_000,
    log,
    onLost: () => undefined,
  });
  await watch.start();
  return {
    lines,
    stop: async () => {
      watch.stop();
      redis.disconnect();
      await server.stop();
    },
  };
}

const about = (lines: Line[], level: number, setting = 'hash-max-listpack-value') =>
  lines.filter((l) => l.level === level && l.msg.includes(setting));

describe('FrontierWatch settings checks', () => {
  const stops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });

  it('warns once when hash-max-listpack-value is below the fold, naming the value to set', async () => {
    const low = await startWatch(['--hash-max-listpack-value', '64']);
    stops.push(low.stop);
    const [warning, ...more] = about(low.lines, 40);
    expect(more).toEqual([]);
    expect(warning?.msg).toMatch(/hash-max-listpack-value is 64.*set hash-max-listpack-value 1024/);
    const ok = await startWatch([]);
    stops.push(ok.stop);
    expect(about(ok.lines, 40)).toEqual([]);
  });

  it('warns once when hash-max-listpack-entries is below what archive hashes hold at scale', async () => {
    const low = await startWatch(['--hash-max-listpack-entries', '128']);
    stops.push(low.stop);
    const [warning, ...more] = about(low.lines, 40, 'hash-max-listpack-entries');
    expect(more).toEqual([]);
    expect(warning?.msg).toMatch(
      /hash-max-listpack-entries is 128.*archive hash.*set hash-max-listpack-entries 512/,
    );
    // The other setting serves: no word about it.
    expect(about(low.lines, 40)).toEqual([]);
    const ok = await startWatch([]);
    stops.push(ok.stop);
    expect(about(ok.lines, 40, 'hash-max-listpack-entries')).toEqual([]);
  });

  it('says nothing but a debug line when Redis refuses CONFIG', async () => {
    const managed = await startWatch([
      '--hash-max-listpack-value',
      '64',
      '--rename-command',
      'CONFIG',
      'config-hidden',
    ]);
    stops.push(managed.stop);
    expect(about(managed.lines, 40)).toEqual([]);
    expect(about(managed.lines, 20)).toHaveLength(1);
  });
});
