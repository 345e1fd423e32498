/** The report of `ring plan`, apart from the planner so the formatter need not import it. */

/** Load of one pod before and after (`null` when the pod is not on that ring). */
export interface PodLoad {
  pod: string;
  before: number | null;
  after: number | null;
}

/** Everything `ring plan` reports; also its `--json` output. */
export interface Plan {
  change: 'add' | 'remove';
  podsBefore: number;
  podsAfter: number;
  added: string[];
  removed: string[];
  vnodes: number;
  seed: number;
  domains: { count: number; source: 'synthetic' | 'file'; file?: string; badLines: number };
  load: PodLoad[];
  maxOverMean: { before: number; after: number };
  moved: {
    domains: number;
    fraction: number;
    optimum: number;
    ratioToOptimum: number;
    keyspaceFraction: number;
  };
}
