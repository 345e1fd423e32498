/**
 * Preloaded into a benchmarked process (`node --import ./memory-probe.js …`): every
 * `BENCH_PROBE_MS` (default 1000) it writes one JSON line to file descriptor 3 with
 * `process.memoryUsage()` and `process.cpuUsage()` (the whole process: every thread), and the
 * CPU of the main JavaScript thread alone (`mainCpuUs`, from /proc: the pod's WARC writer runs on
 * a worker thread), so the parent can chart the child's memory and CPU without touching the
 * program it runs. Without fd 3 it does nothing; worker threads (which inherit the preload) skip
 * it. Plain JavaScript, so it preloads alike into the compiled pod on plain node and into the
 * sources under tsx.
 */
import { fstatSync, readFileSync, writeSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';
import { isMainThread } from 'node:worker_threads';

const FD = 3;
// Linux's USER_HZ: the unit of a thread's times in /proc.
const TICK_US = 10_000;
let open = false;
try {
  fstatSync(FD);
  open = isMainThread;
} catch {
  open = false;
}

/** CPU of the main thread (its task id is the process id), µs; undefined off Linux. */
function mainThreadCpuUs() {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    // Fields after the command name, which may hold spaces: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_US;
  } catch {
    return undefined;
  }
}

if (open) {
  const every = Number(process.env.BENCH_PROBE_MS ?? 1000);
  const sample = () => {
    const m = process.memoryUsage();
    const c = process.cpuUsage();
    const line = {
      atMs: Date.now(),
      rss: m.rss,
      heapTotal: m.heapTotal,
      heapUsed: m.heapUsed,
      external: m.external,
      arrayBuffers: m.arrayBuffers,
      cpuUs: c.user + c.system,
      mainCpuUs: mainThreadCpuUs(),
      // Committed size per V8 heap space (new_space, old_space, code_space, …), bytes.
      spaces: Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s.space_size])),
    };
    try {
      writeSync(FD, `${JSON.stringify(line)}\n`);
    } catch {
      clearInterval(timer);
    }
  };
  const timer = setInterval(sample, every);
  timer.unref();
  sample();
}
