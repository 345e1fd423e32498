import { describe, expect, it } from 'vitest';
import {
  diffRings,
  HashRing,
  loadHasher,
  type MovedRange,
  syntheticDomains,
} from '../src/index.js';

const domains = syntheticDomains(100_000, 5);

// Top-level await: the rings below are built while the suite is collected.
await loadHasher();

/** Independent reading of the ranges: binary search by end, then the documented rule. */
function inRanges(ranges: readonly MovedRange[], pos: bigint): MovedRange | undefined {
  let a = 0;
  let b = ranges.length;
  while (a < b) {
    const m = (a + b) >>> 1;
    if (ranges[m]!.end < pos) a = m + 1;
    else b = m;
  }
  const r = ranges[a === ranges.length ? 0 : a];
  if (r === undefined) return undefined;
  const inside = r.start >= r.end ? pos > r.start || pos <= r.end : pos > r.start && pos <= r.end;
  return inside ? r : undefined;
}

function expectExactPrediction(before: HashRing, after: HashRing) {
  const diff = diffRings(before, after);
  let moved = 0;
  let wrongMoved = 0;
  let wrongChange = 0;
  let wrongRanges = 0;
  for (const d of domains) {
    const from = before.owner(d);
    const to = after.owner(d);
    const changed = from !== to;
    if (changed) moved++;
    if (diff.moved(d) !== changed) wrongMoved++;
    const change = diff.change(d);
    if (changed ? change?.from !== from || change?.to !== to : change !== undefined) wrongChange++;
    const range = inRanges(diff.ranges, before.position(d));
    if (changed ? range?.from !== from || range?.to !== to : range !== undefined) wrongRanges++;
  }
  expect({ wrongMoved, wrongChange, wrongRanges }).toEqual({
    wrongMoved: 0,
    wrongChange: 0,
    wrongRanges: 0,
  });
  expect(moved).toBeGreaterThan(0);
  return { diff, moved: moved / domains.length };
}

describe('diffRings', () => {
  const base = new HashRing(
    Array.from({ length: 10 }, (_, i) => `pod-${i}`),
    { vnodes: 256, seed: 1 },
  );

  it('ranges predict exactly which of 100,000 keys change owner when a pod joins', () => {
    const after = base.add('pod-new');
    const { diff, moved } = expectExactPrediction(base, after);
    expect(diff.movedFraction).toBeCloseTo(after.shares().get('pod-new')!, 12);
    expect(Math.abs(moved - diff.movedFraction)).toBeLessThan(0.005);
    for (const r of diff.ranges) expect(r.to).toBe('pod-new');
  });

  it('… when pods leave, weights change and several things change at once', () => {
    expectExactPrediction(base, base.remove('pod-3', 'pod-7'));
    expectExactPrediction(
      base,
      new HashRing(
        [
          ...Array.from({ length: 9 }, (_, i) => ({ id: `pod-${i}`, weight: i === 2 ? 2 : 1 })),
          'pod-x',
        ],
        { vnodes: 256, seed: 1 },
      ),
    );
  });

  it('… across a different seed and vnode count (a full reshuffle)', () => {
    const { diff, moved } = expectExactPrediction(
      base,
      new HashRing(base.ids(), { vnodes: 100, seed: 2 }),
    );
    expect(diff.movedFraction).toBeGreaterThan(0.8);
    expect(Math.abs(moved - diff.movedFraction)).toBeLessThan(0.01);
  });

  it('ranges are sorted by end, disjoint, and only the first may wrap', () => {
    const diff = diffRings(base, base.add('a', 'b').remove('pod-0'));
    const ranges = diff.ranges;
    expect(ranges.length).toBe(diff.rangeCount);
    for (let i = 1; i < ranges.length; i++) {
      expect(ranges[i]!.start).toBeLessThan(ranges[i]!.end);
      expect(ranges[i]!.start).toBeGreaterThanOrEqual(ranges[i - 1]!.end);
      // Adjacent ranges with the same owners are merged.
      if (ranges[i]!.start === ranges[i - 1]!.end) {
        expect([ranges[i]!.from, ranges[i]!.to]).not.toEqual([
          ranges[i - 1]!.from,
          ranges[i - 1]!.to,
        ]);
      }
    }
  });

  it('reports nothing for identical rings', () => {
    const diff = diffRings(base, new HashRing([...base.ids()].reverse(), { vnodes: 256, seed: 1 }));
    expect(diff.rangeCount).toBe(0);
    expect(diff.movedFraction).toBe(0);
    expect(diff.moved('example.com')).toBe(false);
  });

  it('treats an empty ring as owning nothing', () => {
    const empty = new HashRing([], { vnodes: 256, seed: 1 });
    const up = diffRings(empty, base);
    expect(up.movedFraction).toBeCloseTo(1, 12);
    expect(up.change('example.com')).toEqual({ from: null, to: base.owner('example.com') });
    const down = diffRings(base, empty);
    expect(down.change('example.com')).toEqual({ from: base.owner('example.com'), to: null });
    expect(diffRings(empty, empty).rangeCount).toBe(0);
  });

  it('joins the moved arc that wraps past 2^64 - 1 into one range', () => {
    // a has one token, b sixteen: everything except the arc just before a's token moves
    // a → b. Unless a's token is the first or last on the ring, that arc crosses zero and
    // the walk meets it in two pieces (its start and its end) that must be joined.
    for (let attempt = 0; attempt < 50; attempt++) {
      const a = { id: `a${attempt}`, weight: 1 / 16 };
      const before = new HashRing([a], { vnodes: 16 });
      const after = new HashRing([a, 'b'], { vnodes: 16 });
      const diff = diffRings(before, after);
      const only = diff.ranges[0]!;
      if (diff.rangeCount !== 1 || only.start === only.end) continue;
      expect(only.start).toBeGreaterThan(only.end);
      expect(only).toMatchObject({ from: a.id, to: 'b' });
      expectExactPrediction(before, after);
      return;
    }
    throw new Error('no id put a strictly inside the ring');
  });

  it('handles a single token on each side (whole-ring range)', () => {
    const a = new HashRing(['a'], { vnodes: 1 });
    const b = new HashRing(['b'], { vnodes: 1 });
    const diff = diffRings(a, b);
    expect(diff.movedFraction).toBeCloseTo(1, 12);
    for (const d of domains.slice(0, 1000)) expect(diff.change(d)).toEqual({ from: 'a', to: 'b' });
  });
});
