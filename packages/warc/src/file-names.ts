/**
 * WARC file names: `<prefix>-<UTC time>-<pod>-<serial>.warc.gz`, with `.open` appended while the
 * file is written. The time (17 digits, to the millisecond) and the per-process serial make
 * names unique per pod across restarts; the pod id in the name lets a restarted pod find and
 * repair its own unfinished files and no other pod's.
 */

/** Ends the name of a closed WARC file. */
export const WARC_SUFFIX = '.warc.gz';
/** Appended while the file is being written. */
export const OPEN_SUFFIX = '.open';

/** The name an `.open` file takes once closed (the same name when it is not one). */
export function closedName(name: string): string {
  return name.endsWith(OPEN_SUFFIX) ? name.slice(0, -OPEN_SUFFIX.length) : name;
}

/** `20261125061500123`: UTC time to the millisecond, digits only. */
export function warcTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:TZ.]/g, '');
}

/** The name of a closed file. */
export function warcFileName(prefix: string, pod: string, atMs: number, serial: number): string {
  return `${prefix}-${warcTimestamp(atMs)}-${pod}-${String(serial).padStart(5, '0')}${WARC_SUFFIX}`;
}

/** Whether `name` is an unfinished (`.open`) file of pod `pod` under `prefix`. */
export function isOwnOpenFile(name: string, prefix: string, pod: string): boolean {
  const head = `${prefix}-`;
  const tail = `${WARC_SUFFIX}${OPEN_SUFFIX}`;
  if (!name.startsWith(head) || !name.endsWith(tail)) return false;
  // <17-digit time>-<pod>-<serial>
  const middle = name.slice(head.length, name.length - tail.length);
  const match = /^\d{17}-(.+)-\d+$/.exec(middle);
  return match?.[1] === pod;
}
