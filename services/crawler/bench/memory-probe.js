/**
 * Preloaded into a benchmarked process (`node --import ./memory-probe.js …`): every
 * `BENCH_PROBE_MS` (default 1000) it writes one JSON line to file descriptor 3 with
 * `process.memoryUsage()` and `process.cpuUsage()`, so the parent can chart the child's memory
 * and CPU without touching the program it runs. Without fd 3 it does nothing. Plain JavaScript,
 * so it preloads alike into the compiled pod on plain node and into the sources under tsx.
 */
import { fstatSync, writeSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';

const FD = 3;
let open = false;
try {
  fstatSync(FD);
  open = true;
} catch {
  open = false;
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
