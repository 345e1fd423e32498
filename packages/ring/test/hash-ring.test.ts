import { beforeAll, describe, expect, it } from 'vitest';
import xxhash from 'xxhash-wasm';
import { HashRing, loadHasher, type RingMember, syntheticDomains } from '../src/index.js';

const domains = syntheticDomains(100_000, 11);
let reference: Awaited<ReturnType<typeof xxhash>>;

beforeAll(async () => {
  await loadHasher();
  reference = await xxhash();
});

function seeded(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4_294_967_296;
  };
}

function shuffle<T>(items: readonly T[], rand: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The ring spelled out from its definition with xxhash-wasm's BigInt API. */
function referenceRing(members: RingMember[], vnodes: number, seed: bigint) {
  const encoder = new TextEncoder();
  const tokens: { pos: bigint; id: string }[] = [];
  for (const m of members) {
    const count = Math.max(1, Math.round(vnodes * (m.weight ?? 1)));
    const idBytes = encoder.encode(m.id);
    for (let i = 0; i < count; i++) {
      const bytes = new Uint8Array(4 + idBytes.length);
      new DataView(bytes.buffer).setUint32(0, i, true);
      bytes.set(idBytes, 4);
      tokens.push({ pos: reference.h64Raw(bytes, seed), id: m.id });
    }
  }
  tokens.sort((a, b) => (a.pos < b.pos ? -1 : a.pos > b.pos ? 1 : a.id < b.id ? -1 : 1));
  const firstAtOrAfter = (key: string) => {
    const pos = reference.h64(key);
    let a = 0;
    let b = tokens.length;
    while (a < b) {
      const m = (a + b) >>> 1;
      if (tokens[m]!.pos < pos) a = m + 1;
      else b = m;
    }
    return a === tokens.length ? 0 : a;
  };
  return {
    owner: (key: string) => tokens[firstAtOrAfter(key)]!.id,
    owners(key: string, k: number) {
      const out: string[] = [];
      for (let t = firstAtOrAfter(key); out.length < k; t = (t + 1) % tokens.length) {
        if (!out.includes(tokens[t]!.id)) out.push(tokens[t]!.id);
      }
      return out;
    },
  };
}

describe('HashRing', () => {
  it('owner is the first token clockwise, as defined with the xxhash-wasm BigInt API', () => {
    const members = [{ id: 'pod-a', weight: 1 }, { id: 'pod-b', weight: 2.5 }, { id: 'ポッド' }];
    const ring = new HashRing(members, { vnodes: 24, seed: 5 });
    const spec = referenceRing(members, 24, 5n);
    for (const d of domains.slice(0, 10_000)) {
      expect(ring.owner(d)).toBe(spec.owner(d));
    }
    for (const d of domains.slice(0, 500)) {
      expect(ring.owners(d, 3)).toEqual(spec.owners(d, 3));
    }
  });

  it('two rings built from the same members in different orders agree on every key', () => {
    const rand = seeded(1);
    const members: RingMember[] = Array.from({ length: 25 }, (_, i) => ({
      id: `crawler-${i.toString(36)}-${Math.floor(rand() * 1e6)}`,
      weight: 0.5 + Math.floor(rand() * 4) / 2,
    }));
    const a = new HashRing(members, { vnodes: 512, seed: 9 });
    const b = new HashRing(shuffle(members, rand), { vnodes: 512, seed: 9 });
    expect(b.fingerprint).toBe(a.fingerprint);
    let disagree = 0;
    for (const d of domains) if (a.owner(d) !== b.owner(d)) disagree++;
    expect(disagree).toBe(0);
  });

  it('owners(k) returns k distinct pods starting with the owner, all pods when k ≥ size', () => {
    const ring = new HashRing(['a', 'b', 'c', 'd', 'e'], { vnodes: 64 });
    for (const d of domains.slice(0, 2000)) {
      const three = ring.owners(d, 3);
      expect(new Set(three).size).toBe(3);
      expect(three[0]).toBe(ring.owner(d));
      expect(ring.owners(d, 9).sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    }
    expect(() => ring.owners('x', 0)).toThrow(
      expect.objectContaining({ code: 'SHARDLINE_ERR_RING_INVALID_OPTION' }),
    );
  });

  it('weights shift load proportionally, fractional weights included', () => {
    const weights: Record<string, number> = { a: 1, b: 2, c: 3, d: 0.5 };
    const ring = new HashRing(
      Object.entries(weights).map(([id, weight]) => ({ id, weight })),
      { vnodes: 4096 },
    );
    const load = new Map<string, number>();
    for (const d of domains) load.set(ring.owner(d), (load.get(ring.owner(d)) ?? 0) + 1);
    const total = 6.5;
    for (const [id, w] of Object.entries(weights)) {
      const share = (load.get(id) ?? 0) / domains.length;
      expect(Math.abs(share / (w / total) - 1)).toBeLessThan(0.06);
      expect(Math.abs(ring.shares().get(id)! / (w / total) - 1)).toBeLessThan(0.05);
    }
  });

  it('gives each pod max(1, round(vnodes × weight)) tokens', () => {
    const ring = new HashRing(
      [
        { id: 'a', weight: 1 },
        { id: 'b', weight: 0.25 },
        { id: 'c', weight: 0.0001 },
      ],
      { vnodes: 10 },
    );
    expect(ring.tokenCount).toBe(10 + 3 + 1);
  });

  it('shares sum to 1 and match observed loads at the default vnodes', () => {
    const ring = new HashRing(Array.from({ length: 10 }, (_, i) => `pod-${i}`));
    const shares = ring.shares();
    expect([...shares.values()].reduce((s, x) => s + x, 0)).toBeCloseTo(1, 12);
    const load = new Map<string, number>();
    for (const d of domains) load.set(ring.owner(d), (load.get(ring.owner(d)) ?? 0) + 1);
    const max = Math.max(...load.values());
    expect(max / (domains.length / 10)).toBeLessThan(1.08);
  });

  it('a one-member ring owns everything', () => {
    const ring = new HashRing(['solo'], { vnodes: 1 });
    expect(ring.shares().get('solo')).toBe(1);
    expect(ring.owners('x.com', 3)).toEqual(['solo']);
  });

  it('the seed moves tokens but not key positions', () => {
    const a = new HashRing(['a', 'b', 'c'], { vnodes: 256, seed: 1 });
    const b = new HashRing(['a', 'b', 'c'], { vnodes: 256, seed: 2 });
    expect(a.position('example.com')).toBe(b.position('example.com'));
    expect(a.position('example.com')).toBe(reference.h64('example.com'));
    let differ = 0;
    for (const d of domains.slice(0, 10_000)) if (a.owner(d) !== b.owner(d)) differ++;
    expect(differ).toBeGreaterThan(5000);
    expect(a.fingerprint).not.toBe(b.fingerprint);
  });

  it('add and remove return new rings and leave the original alone', () => {
    const ring = new HashRing(['a', 'b'], { vnodes: 32, seed: 3, epoch: 4 });
    const added = ring.add({ id: 'c', weight: 2 });
    expect(added.ids()).toEqual(['a', 'b', 'c']);
    expect(added.weight('c')).toBe(2);
    expect(added.epoch).toBe(5);
    expect(added.vnodes).toBe(32);
    expect(added.seed).toBe(3);
    expect(ring.ids()).toEqual(['a', 'b']);
    const removed = added.remove('a');
    expect(removed.ids()).toEqual(['b', 'c']);
    expect(removed.epoch).toBe(6);
    expect(removed.fingerprint).toBe(
      new HashRing(['b', { id: 'c', weight: 2 }], { vnodes: 32, seed: 3 }).fingerprint,
    );
    expect(() => ring.add('a')).toThrow(
      expect.objectContaining({ code: 'SHARDLINE_ERR_RING_DUPLICATE_MEMBER' }),
    );
    expect(() => ring.remove('zz')).toThrow(
      expect.objectContaining({ code: 'SHARDLINE_ERR_RING_UNKNOWN_MEMBER' }),
    );
  });

  it('an empty ring refuses lookups with EMPTY', () => {
    const ring = new HashRing([]);
    expect(ring.size).toBe(0);
    expect(() => ring.owner('a.com')).toThrow(
      expect.objectContaining({ code: 'SHARDLINE_ERR_RING_EMPTY' }),
    );
    expect(() => ring.owners('a.com', 1)).toThrow(
      expect.objectContaining({ code: 'SHARDLINE_ERR_RING_EMPTY' }),
    );
  });
});

describe('movement', () => {
  // The popular `hashring` package moves keys between pods that both stay; ours must not.
  it('keys only move to joining pods or away from leaving pods, over many random sizes', () => {
    const rand = seeded(2024);
    const keys = domains.slice(0, 20_000);
    let moved = 0;
    let betweenSurvivors = 0;
    for (let trial = 0; trial < 30; trial++) {
      const size = 1 + Math.floor(rand() * 40);
      const ids = Array.from(
        { length: size + 3 },
        (_, i) => `p${trial}-${i}-${Math.floor(rand() * 1e9)}`,
      );
      const joiners = ids.splice(0, 1 + Math.floor(rand() * 3));
      const members = ids.map((id) => ({ id, weight: 0.5 + Math.floor(rand() * 3) }));
      const ring = new HashRing(members, { vnodes: 128, seed: trial });
      const grown = ring.add(...joiners);
      const leavers = shuffle(ids, rand).slice(0, Math.min(size - 1, 1 + Math.floor(rand() * 3)));
      const shrunk = ring.remove(...leavers);
      const joinerSet = new Set(joiners);
      const leaverSet = new Set(leavers);
      for (const k of keys) {
        const before = ring.owner(k);
        const up = grown.owner(k);
        if (up !== before) {
          moved++;
          if (!joinerSet.has(up)) betweenSurvivors++;
        }
        const down = shrunk.owner(k);
        if (down !== before) {
          moved++;
          if (!leaverSet.has(before)) betweenSurvivors++;
        }
      }
    }
    expect(moved).toBeGreaterThan(0);
    expect(betweenSurvivors).toBe(0);
  });

  it('raising one pod’s weight only moves keys to that pod', () => {
    const ring = new HashRing(['a', 'b', 'c', 'd'], { vnodes: 256 });
    const heavier = new HashRing(['a', 'b', { id: 'c', weight: 1.7 }, 'd'], { vnodes: 256 });
    let moved = 0;
    for (const k of domains.slice(0, 20_000)) {
      const to = heavier.owner(k);
      if (to !== ring.owner(k)) {
        moved++;
        expect(to).toBe('c');
      }
    }
    expect(moved).toBeGreaterThan(0);
  });
});
