/**
 * Aligned plain-text tables for the human output of read commands: a header row, columns
 * padded to their widest cell, numbers right-aligned. No colours, no box drawing, so the
 * output stays greppable and pastes cleanly.
 */

/** One column: its header, how to read a cell from a row, and its alignment. */
export interface Column<Row> {
  header: string;
  cell: (row: Row) => string | number | boolean | null | undefined;
  /** @default 'right' for numbers, 'left' otherwise (decided per column from the cells) */
  align?: 'left' | 'right';
}

/** Renders a number with thousands separators (`12,345`); other values as text. */
export function formatCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'number') {
    return Number.isInteger(value) ? value.toLocaleString('en-US') : String(value);
  }
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return value;
}

/** Renders rows as an aligned table, two spaces between columns, no trailing spaces. */
export function formatTable<Row>(rows: readonly Row[], columns: readonly Column<Row>[]): string {
  const raw = rows.map((row) => columns.map((column) => column.cell(row)));
  const cells = raw.map((values) => values.map(formatCell));
  const align = columns.map(
    (column, c) =>
      column.align ??
      (raw.length > 0 && raw.every((values) => typeof values[c] === 'number') ? 'right' : 'left'),
  );
  const widths = columns.map((column, c) =>
    Math.max(column.header.length, ...cells.map((values) => values[c]!.length)),
  );
  const line = (values: readonly string[]) =>
    values
      .map((value, c) =>
        align[c] === 'right' ? value.padStart(widths[c]!) : value.padEnd(widths[c]!),
      )
      .join('  ')
      .trimEnd();
  return `${[line(columns.map((c) => c.header)), ...cells.map(line)].join('\n')}\n`;
}

/** Key/value lines with the keys padded to one width (for single-object output). */
export function formatPairs(pairs: readonly [string, string | number | boolean | null][]): string {
  const width = Math.max(0, ...pairs.map(([key]) => key.length));
  return `${pairs.map(([key, value]) => `${key.padEnd(width)}  ${formatCell(value)}`.trimEnd()).join('\n')}\n`;
}

/** A fraction as a percentage with two decimals (`0.0912` → `9.12%`). */
export function percent(fraction: number): string {
  return `${(fraction * 100).toFixed(2)}%`;
}

/** A count with its noun: `1 domain`, `3 domains`, `1,200 keys`. */
export function plural(n: number, noun: string): string {
  return `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`;
}

/** A duration in ms as `850 ms`, `1.2 s`, `3.0 min`, `2.5 h`. */
export function duration(ms: number): string {
  const abs = Math.abs(ms);
  if (abs < 1000) return `${Math.round(ms)} ms`;
  if (abs < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (abs < 3_600_000) return `${(ms / 60_000).toFixed(1)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

/** A moment relative to now: `in 1.2 s`, `3.0 s ago`, `now`. */
export function relative(atMs: number, nowMs: number): string {
  const delta = atMs - nowMs;
  if (Math.abs(delta) < 1) return 'now';
  return delta > 0 ? `in ${duration(delta)}` : `${duration(-delta)} ago`;
}
