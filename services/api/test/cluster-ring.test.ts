import { HashRing } from '@shardline/ring';
import { describe, expect, it } from 'vitest';
import { ClusterRing } from '../src/cluster-ring.js';
import {
  type ClusterMember,
  type ClusterState,
  type ClusterView,
  StaticClusterView,
} from '../src/cluster-view.js';
import { ApiOptionsError, HttpError } from '../src/errors.js';

class CountingView implements ClusterView {
  calls = 0;
  list: ClusterMember[];
  constructor(list: ClusterMember[]) {
    this.list = list;
  }
  async read(): Promise<ClusterState> {
    this.calls++;
    return { members: this.list.map((m) => ({ ...m })), epoch: this.calls, source: 'static' };
  }
}

function coverage(arcs: { pod: string; start: number; end: number }[]): Map<string, number> {
  const out = new Map<string, number>();
  let at = 0;
  for (const arc of arcs) {
    expect(arc.start).toBeCloseTo(at, 12);
    out.set(arc.pod, (out.get(arc.pod) ?? 0) + arc.end - arc.start);
    at = arc.end;
  }
  expect(at).toBeCloseTo(1, 12);
  return out;
}

describe('ClusterRing', () => {
  it('builds the same ring as HashRing from the view, alive members only', async () => {
    const cr = new ClusterRing(
      new CountingView([
        { id: 'b', weight: 2, alive: true },
        { id: 'a', weight: 1, alive: true },
        { id: 'c', weight: 1, alive: false },
      ]),
      { vnodes: 64, seed: 3 },
    );
    const { ring, members } = await cr.snapshot();
    const expected = await HashRing.create([{ id: 'a' }, { id: 'b', weight: 2 }], {
      vnodes: 64,
      seed: 3,
    });
    expect(ring.fingerprint).toBe(expected.fingerprint);
    expect(members.map((m) => m.id)).toEqual(['a', 'b', 'c']);
    for (const d of ['x.example', 'y.example', 'z.example'])
      expect(cr.ownerOf(d)).toBe(expected.owner(d));
  });

  it("folds token ranges into contiguous arcs that keep each pod's share", async () => {
    const cr = new ClusterRing(new StaticClusterView(['a', { id: 'b', weight: 3 }]));
    const { ring } = await cr.snapshot();
    const drawn = coverage(cr.arcs(ring, 3600));
    for (const [pod, share] of ring.shares()) expect(drawn.get(pod)).toBeCloseTo(share, 9);
    expect(cr.arcs(ring, 3600)).toBe(cr.arcs(ring, 3600)); // cached per ring and resolution
  });

  it('draws one pod as the whole circle and an empty ring as nothing', async () => {
    const one = new ClusterRing(new StaticClusterView(['solo']));
    const solo = await one.snapshot();
    expect(one.arcs(solo.ring, 360)).toEqual([{ pod: 'solo', start: 0, end: 1 }]);
    const none = new ClusterRing(new StaticClusterView([]));
    const empty = await none.snapshot();
    expect(none.arcs(empty.ring, 360)).toEqual([]);
    let error: unknown;
    try {
      none.ownerOf('a.example');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).code).toBe('SHARDLINE_ERR_API_NO_PODS');
    expect((error as HttpError).statusCode).toBe(503);
  });

  it('asks the view at most once per refresh interval, sharing one refresh', async () => {
    const view = new CountingView([{ id: 'a', weight: 1, alive: true }]);
    const cr = new ClusterRing(view, { refreshMs: 60_000 });
    await Promise.all([cr.snapshot(), cr.snapshot(), cr.snapshot()]);
    await cr.snapshot();
    expect(view.calls).toBe(1);
    const fresh = new ClusterRing(view, { refreshMs: 0 });
    await fresh.snapshot();
    view.list.push({ id: 'b', weight: 1, alive: true });
    const after = await fresh.snapshot();
    expect(after.ring.ids()).toEqual(['a', 'b']);
  });

  it('validates its options', () => {
    const view = new StaticClusterView(['a']);
    expect(() => new ClusterRing(view, { vnodes: 0 })).toThrow(ApiOptionsError);
    expect(() => new ClusterRing(view, { seed: -1 })).toThrow(/ringOptions.seed/);
    expect(() => new ClusterRing({} as ClusterView)).toThrow(/cluster/);
  });
});
