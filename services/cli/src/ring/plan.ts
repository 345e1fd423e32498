import { diffRings, syntheticDomains } from '@shardline/ring';
import type { CliContext } from '../context.js';
import { CliError, CliErrorCode, ExitCode, usageError } from '../errors.js';
import { clip, domainOfLine } from '../lib/domains.js';
import { meaningfulLines, openLines } from '../lib/lines.js';
import { buildRing, type RingFlags } from './build.js';
import { formatPlan } from './format-plan.js';
import type { Plan } from './plan-report.js';

/** Domains used when `--domains` is not given. */
export const SYNTHETIC_DOMAINS = 100_000;

/** Options of `shardline ring plan`. */
export interface PlanFlags extends RingFlags {
  pods: number | string[];
  add?: number;
  remove?: number;
  domains?: string;
  json?: boolean;
}

function podIds(pods: number | string[]): string[] {
  return typeof pods === 'number' ? Array.from({ length: pods }, (_, i) => `pod-${i}`) : pods;
}

/** `k` new ids `pod-<i>` not already taken, lowest `i` first. */
function newPodIds(existing: readonly string[], k: number): string[] {
  const taken = new Set(existing);
  const ids: string[] = [];
  for (let i = 0; ids.length < k; i++) if (!taken.has(`pod-${i}`)) ids.push(`pod-${i}`);
  return ids;
}

async function loadDomains(
  ctx: CliContext,
  file: string,
): Promise<{ domains: string[]; bad: number }> {
  const unique = new Set<string>();
  let bad = 0;
  for await (const line of meaningfulLines(await openLines(file))) {
    const result = line.rejection
      ? { ok: false as const, reason: line.rejection.reason }
      : domainOfLine(line.text);
    if (result.ok) unique.add(result.domain);
    else {
      bad++;
      ctx.stderr.write(`${file}:${line.number}: ${result.reason}: ${clip(line.text)}\n`);
    }
  }
  return { domains: [...unique], bad };
}

function maxOverMean(counts: Map<string, number>, pods: readonly string[], total: number): number {
  let max = 0;
  for (const id of pods) max = Math.max(max, counts.get(id) ?? 0);
  return total === 0 ? 0 : max / (total / pods.length);
}

/** Computes the plan: loads before/after and the domains that would move. */
export async function computePlan(ctx: CliContext, flags: PlanFlags): Promise<Plan> {
  if ((flags.add === undefined) === (flags.remove === undefined)) {
    throw usageError('give exactly one of --add <k> and --remove <k>');
  }
  const before = podIds(flags.pods);
  const k = flags.add ?? flags.remove!;
  if (flags.remove !== undefined && k >= before.length) {
    throw usageError(`--remove ${k} would leave no pods (there are ${before.length})`);
  }
  const added = flags.add !== undefined ? newPodIds(before, k) : [];
  const removed = flags.remove !== undefined ? before.slice(before.length - k) : [];

  const ringBefore = await buildRing(
    before.map((id) => ({ id })),
    flags,
  );
  const ringAfter =
    flags.add !== undefined ? ringBefore.add(...added) : ringBefore.remove(...removed);

  let domains: string[];
  let bad = 0;
  if (flags.domains === undefined) {
    domains = syntheticDomains(SYNTHETIC_DOMAINS);
  } else {
    ({ domains, bad } = await loadDomains(ctx, flags.domains));
    if (domains.length === 0) {
      throw new CliError(CliErrorCode.INPUT, `${flags.domains} holds no usable domains`);
    }
  }

  const countBefore = new Map<string, number>();
  const countAfter = new Map<string, number>();
  let moved = 0;
  for (const d of domains) {
    const a = ringBefore.owner(d);
    const b = ringAfter.owner(d);
    countBefore.set(a, (countBefore.get(a) ?? 0) + 1);
    countAfter.set(b, (countAfter.get(b) ?? 0) + 1);
    if (a !== b) moved++;
  }
  const after = ringAfter.ids();
  const allPods = [...before, ...added];
  const optimum = flags.add !== undefined ? k / (before.length + k) : k / before.length;
  const fraction = moved / domains.length;
  return {
    change: flags.add !== undefined ? 'add' : 'remove',
    podsBefore: before.length,
    podsAfter: after.length,
    added,
    removed,
    vnodes: ringBefore.vnodes,
    seed: ringBefore.seed,
    domains: {
      count: domains.length,
      source: flags.domains === undefined ? 'synthetic' : 'file',
      ...(flags.domains === undefined ? {} : { file: flags.domains }),
      badLines: bad,
    },
    load: allPods.map((pod) => ({
      pod,
      before: ringBefore.has(pod) ? (countBefore.get(pod) ?? 0) : null,
      after: ringAfter.has(pod) ? (countAfter.get(pod) ?? 0) : null,
    })),
    maxOverMean: {
      before: maxOverMean(countBefore, before, domains.length),
      after: maxOverMean(countAfter, after, domains.length),
    },
    moved: {
      domains: moved,
      fraction,
      optimum,
      ratioToOptimum: fraction / optimum,
      keyspaceFraction: diffRings(ringBefore, ringAfter).movedFraction,
    },
  };
}

/** `shardline ring plan`: prints the plan as text or JSON. */
export async function runPlan(ctx: CliContext, flags: PlanFlags): Promise<void> {
  const plan = await computePlan(ctx, flags);
  ctx.stdout.write(flags.json ? `${JSON.stringify(plan, null, 2)}\n` : formatPlan(plan));
  if (plan.domains.badLines > 0) {
    ctx.stderr.write(
      `error: ${plan.domains.badLines} line${plan.domains.badLines === 1 ? '' : 's'} of ${flags.domains} ${plan.domains.badLines === 1 ? 'was' : 'were'} not a URL or host\n`,
    );
    ctx.exitCode = ExitCode.FAILED;
  }
}
