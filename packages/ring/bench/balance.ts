/**
 * Balance and movement of the ring for random sets of pod ids, measured on real keys:
 * max/mean load at `pods` pods, and the fraction of keys that move when one pod joins
 * (optimum 1/(pods+1)) or one leaves (optimum 1/pods), weighted when `weightOf` is given
 * (load against n × w / Σw, movement against the joiner's or leaver's weight share). Also counts keys that moved between
 * two pods that both stayed, which must be zero.
 */

/** Anything that maps a key to a pod id. */
export interface Placement {
  owner(key: string): string;
}

export interface BalanceStats {
  label: string;
  sets: number;
  maxOverMeanMean: number;
  maxOverMeanWorst: number;
  joinRatioMean: number;
  joinRatioWorst: number;
  leaveRatioMean: number;
  leaveRatioWorst: number;
  survivorMoves: number;
}

/** Kubernetes-style pod ids (`crawler-5f7c9d-x2k4q`) from a seeded PRNG. */
export function randomPodIds(count: number, seed: number): string[] {
  let s = (seed * 2654435761 + 12345) >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
  const ids = new Set<string>();
  while (ids.size < count) {
    ids.add(
      `crawler-${next().toString(16).padStart(8, '0').slice(0, 6)}-${next().toString(36).slice(0, 5)}`,
    );
  }
  return [...ids];
}

export function measureBalance(
  label: string,
  domains: readonly string[],
  pods: number,
  sets: number,
  place: (ids: string[]) => Placement,
  weightOf: (id: string) => number = () => 1,
): BalanceStats {
  const stats: BalanceStats = {
    label,
    sets,
    maxOverMeanMean: 0,
    maxOverMeanWorst: 0,
    joinRatioMean: 0,
    joinRatioWorst: 0,
    leaveRatioMean: 0,
    leaveRatioWorst: 0,
    survivorMoves: 0,
  };
  const n = domains.length;
  const owners = new Array<string>(n);
  for (let set = 0; set < sets; set++) {
    const ids = randomPodIds(pods + 1, set);
    const joiner = ids.pop()!;
    const ring = place(ids);
    const load = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      const o = ring.owner(domains[i]!);
      owners[i] = o;
      load.set(o, (load.get(o) ?? 0) + 1);
    }
    const totalWeight = ids.reduce((sum, id) => sum + weightOf(id), 0);
    // Load relative to the pod's fair share: n × weight / Σ weights.
    const ratio = Math.max(
      ...ids.map((id) => (load.get(id) ?? 0) / ((n * weightOf(id)) / totalWeight)),
    );
    stats.maxOverMeanMean += ratio / sets;
    stats.maxOverMeanWorst = Math.max(stats.maxOverMeanWorst, ratio);

    const joined = place([...ids, joiner]);
    let moved = 0;
    for (let i = 0; i < n; i++) {
      const o = joined.owner(domains[i]!);
      if (o !== owners[i]) {
        moved++;
        if (o !== joiner) stats.survivorMoves++;
      }
    }
    const join = moved / n / (weightOf(joiner) / (totalWeight + weightOf(joiner)));
    stats.joinRatioMean += join / sets;
    stats.joinRatioWorst = Math.max(stats.joinRatioWorst, join);

    const leaver = ids[set % ids.length]!;
    const left = place(ids.filter((id) => id !== leaver));
    moved = 0;
    for (let i = 0; i < n; i++) {
      const o = left.owner(domains[i]!);
      if (o !== owners[i]) {
        moved++;
        if (owners[i] !== leaver) stats.survivorMoves++;
      }
    }
    const leave = moved / n / (weightOf(leaver) / totalWeight);
    stats.leaveRatioMean += leave / sets;
    stats.leaveRatioWorst = Math.max(stats.leaveRatioWorst, leave);
  }
  return stats;
}

export function formatBalanceTable(rows: readonly BalanceStats[]): string {
  const f = (x: number) => x.toFixed(3);
  const lines = [
    '| placement | max/mean (mean) | max/mean (worst) | join moved / optimal (mean) | (worst) | leave moved / optimal (mean) | (worst) | moves between survivors |',
    '| :-------- | --------------: | ---------------: | --------------------------: | ------: | ---------------------------: | ------: | ----------------------: |',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.label} | ${f(r.maxOverMeanMean)} | ${f(r.maxOverMeanWorst)} | ${f(r.joinRatioMean)} | ${f(r.joinRatioWorst)} | ${f(r.leaveRatioMean)} | ${f(r.leaveRatioWorst)} | ${r.survivorMoves} |`,
    );
  }
  return lines.join('\n');
}
