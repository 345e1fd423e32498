/**
 * RSS and CPU of process trees, read from /proc (Linux): every `intervalMs` it walks
 * `/proc/<pid>/stat`, keeps each group's root pids and their descendants, sums RSS, and keeps
 * each pid's last-seen utime + stime (so a process that exits or is killed keeps what it used
 * up to its last sample).
 */
import { readdirSync, readFileSync } from 'node:fs';

const PAGE_BYTES = 4096;
const CLOCK_TICKS = 100;

interface Stat {
  ppid: number;
  cpuTicks: number;
  rssBytes: number;
}

function readStat(pid: number): Stat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // comm may hold spaces and parentheses: the fields start after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): ppid = 4, utime = 14, stime = 15, rss = 24.
  return {
    ppid: Number(fields[1]),
    cpuTicks: Number(fields[11]) + Number(fields[12]),
    rssBytes: Number(fields[21]) * PAGE_BYTES,
  };
}

/** One group's figures. */
export interface GroupFigures {
  /** Highest summed RSS seen, MB. */
  peakRssMb: number;
  /** CPU seconds (user + system) of every pid ever seen in the group. */
  cpuSeconds: number;
  /** [ms since start, summed RSS MB], one per sample. */
  rss: [number, number][];
}

/** Samples named groups of process trees until stopped. */
export class ProcSampler {
  readonly #roots = new Map<string, Set<number>>();
  readonly #cpu = new Map<string, Map<number, number>>();
  readonly #rss = new Map<string, [number, number][]>();
  readonly #startMs = Date.now();
  #timer: NodeJS.Timeout | undefined;

  constructor(intervalMs = 250) {
    this.#timer = setInterval(() => this.sample(), intervalMs);
  }

  /** Adds a root pid (and, from the next sample on, its descendants) to a group. */
  add(group: string, pid: number | undefined): void {
    if (pid === undefined) return;
    let roots = this.#roots.get(group);
    if (roots === undefined) {
      roots = new Set();
      this.#roots.set(group, roots);
      this.#cpu.set(group, new Map());
      this.#rss.set(group, []);
    }
    roots.add(pid);
    this.sample();
  }

  sample(): void {
    const stats = new Map<number, Stat>();
    const children = new Map<number, number[]>();
    for (const name of readdirSync('/proc')) {
      const pid = Number(name);
      if (!Number.isInteger(pid)) continue;
      const stat = readStat(pid);
      if (stat === undefined) continue;
      stats.set(pid, stat);
      const list = children.get(stat.ppid);
      if (list) list.push(pid);
      else children.set(stat.ppid, [pid]);
    }
    const at = Date.now() - this.#startMs;
    for (const [group, roots] of this.#roots) {
      const cpu = this.#cpu.get(group) as Map<number, number>;
      let rss = 0;
      const stack = [...roots];
      const seen = new Set<number>();
      while (stack.length > 0) {
        const pid = stack.pop() as number;
        if (seen.has(pid)) continue;
        seen.add(pid);
        const stat = stats.get(pid);
        if (stat === undefined) continue;
        rss += stat.rssBytes;
        cpu.set(pid, Math.max(cpu.get(pid) ?? 0, stat.cpuTicks));
        stack.push(...(children.get(pid) ?? []));
      }
      if (rss > 0) this.#rss.get(group)?.push([at, rss / 1048576]);
    }
  }

  figures(group: string): GroupFigures {
    const rss = this.#rss.get(group) ?? [];
    let ticks = 0;
    for (const t of this.#cpu.get(group)?.values() ?? []) ticks += t;
    return {
      peakRssMb: rss.reduce((m, [, mb]) => Math.max(m, mb), 0),
      cpuSeconds: ticks / CLOCK_TICKS,
      rss,
    };
  }

  stop(): void {
    this.sample();
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
