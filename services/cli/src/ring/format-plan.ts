import type { Plan } from './plan-report.js';

const int = (n: number) => n.toLocaleString('en-US');
const pct = (x: number) => `${(x * 100).toFixed(2)}%`;

function list(ids: readonly string[]): string {
  return ids.length <= 6 ? ids.join(', ') : `${ids.slice(0, 3).join(', ')}, … ${ids.at(-1)}`;
}

/** The human-readable form of a {@link Plan}. */
export function formatPlan(plan: Plan): string {
  const k = plan.change === 'add' ? plan.added.length : plan.removed.length;
  const lines: string[] = [];
  lines.push(
    `ring plan: ${plan.podsBefore} → ${plan.podsAfter} pods (${plan.change} ${list(plan.change === 'add' ? plan.added : plan.removed)}), vnodes ${plan.vnodes}, seed ${plan.seed}`,
  );
  lines.push(
    plan.domains.source === 'synthetic'
      ? `domains: ${int(plan.domains.count)} synthetic domains (no --domains file given)`
      : `domains: ${int(plan.domains.count)} distinct domains from ${plan.domains.file}`,
  );
  lines.push('');
  const width = Math.max(8, ...plan.load.map((l) => l.pod.length));
  const cell = (n: number | null) => (n === null ? '-' : int(n)).padStart(10);
  lines.push(`${'pod'.padEnd(width)}  ${'before'.padStart(10)}  ${'after'.padStart(10)}`);
  for (const l of plan.load)
    lines.push(`${l.pod.padEnd(width)}  ${cell(l.before)}  ${cell(l.after)}`);
  lines.push(
    `${'max/mean'.padEnd(width)}  ${plan.maxOverMean.before.toFixed(3).padStart(10)}  ${plan.maxOverMean.after.toFixed(3).padStart(10)}`,
  );
  lines.push('');
  const formula = plan.change === 'add' ? 'k/(N+k)' : 'k/N';
  const denominator = plan.change === 'add' ? plan.podsBefore + k : plan.podsBefore;
  lines.push(
    `moved: ${int(plan.moved.domains)} of ${int(plan.domains.count)} domains (${pct(plan.moved.fraction)}); optimum ${formula} = ${k}/${denominator} = ${pct(plan.moved.optimum)}; ratio ${plan.moved.ratioToOptimum.toFixed(3)}`,
  );
  lines.push(`keyspace moved (exact, from the ring diff): ${pct(plan.moved.keyspaceFraction)}`);
  return `${lines.join('\n')}\n`;
}
