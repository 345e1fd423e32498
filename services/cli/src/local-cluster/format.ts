/** The text of `shardline status`. */

import { redisLabel } from '@shardline/frontier';
import type { ClusterFile } from './control-file.js';

/** `1h02m`, `3m05s`, `12s`. */
export function formatUptime(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  if (h > 0) return `${h}h${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m${String(sec).padStart(2, '0')}s`;
  return `${sec}s`;
}

/** A header line and one row per pod: id, pid, state, uptime, restarts, last exit. */
export function formatStatus(file: ClusterFile, nowMs: number): string {
  const header =
    `local cluster in ${file.dataDir}: supervisor pid ${file.supervisorPid}, up ` +
    `${formatUptime(nowMs - file.startedAtMs)}, redis ${redisLabel({ url: file.redis.url })}` +
    `${file.redis.embedded ? ' (embedded)' : ''}, ${file.pods.length} pod(s)\n`;
  const rows = [
    ['POD', 'PID', 'STATE', 'UPTIME', 'RESTARTS', 'LAST EXIT'],
    ...file.pods.map((pod) => [
      pod.id,
      pod.pid === undefined ? '-' : String(pod.pid),
      pod.state,
      pod.startedAtMs === undefined ? '-' : formatUptime(nowMs - pod.startedAtMs),
      String(pod.restarts),
      pod.lastExit ?? '-',
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  const lines = rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
  return `${header}${lines.join('\n')}\n`;
}
