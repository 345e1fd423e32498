/**
 * Crash repair of a `.warc.gz` file written one gzip member per record: a process killed in
 * the middle of a write leaves at most one partial member at the end. `repairFile` finds the
 * end of the last complete member (scanning back for the writer's fixed gzip header and
 * inflating from there) and truncates the rest.
 */
import { open } from 'node:fs/promises';
import { gunzipSync, gzipSync, inflateRawSync } from 'node:zlib';

/**
 * The 10-byte header node:zlib writes on every member (no name, no mtime, this OS). Byte 8
 * (XFL) says how hard the member was compressed: 0, 2 (level 9) or 4 (level 1); the rest is
 * fixed.
 */
const MEMBER_HEADER = gzipSync(Buffer.alloc(0)).subarray(0, 10);
const MEMBER_PREFIX = MEMBER_HEADER.subarray(0, 8);
const XFL_VALUES = new Set([0, 2, 4]);

/** Whether a member header starts at `at` of `bytes`. */
function isMemberHeader(bytes: Buffer, at: number): boolean {
  return (
    at + MEMBER_HEADER.length <= bytes.length &&
    bytes.subarray(at, at + MEMBER_PREFIX.length).equals(MEMBER_PREFIX) &&
    XFL_VALUES.has(bytes[at + 8]!) &&
    bytes[at + 9] === MEMBER_HEADER[9]
  );
}
const TRAILER_BYTES = 8;
/** How far back each step of the scan reads. */
const SCAN_WINDOW = 1 << 20;

/** What {@link repairFile} did. */
export interface RepairReport {
  path: string;
  /** Size before. */
  bytesBefore: number;
  /** Size after (the end of the last complete record). */
  bytesAfter: number;
}

/**
 * The length of the complete gzip member at the start of `bytes` (which may go on past it),
 * or `undefined` when it is partial or corrupt.
 */
export function completeMemberLength(bytes: Buffer): number | undefined {
  if (bytes.length < MEMBER_HEADER.length + TRAILER_BYTES) return undefined;
  if (!isMemberHeader(bytes, 0)) return undefined;
  try {
    const { engine } = inflateRawSync(bytes.subarray(MEMBER_HEADER.length), {
      info: true,
    }) as unknown as { engine: { bytesWritten: number } };
    const length = MEMBER_HEADER.length + engine.bytesWritten + TRAILER_BYTES;
    if (length > bytes.length) return undefined;
    // Checks the trailer (CRC-32 and size) too.
    gunzipSync(bytes.subarray(0, length));
    return length;
  } catch {
    return undefined;
  }
}

/** Truncates `path` after its last complete gzip member. */
export async function repairFile(path: string): Promise<RepairReport> {
  const file = await open(path, 'r+');
  try {
    const { size } = await file.stat();
    let end = size;
    for (;;) {
      const start = await lastHeaderBefore(file, end);
      if (start < 0) {
        end = 0;
        break;
      }
      const tail = Buffer.alloc(end - start);
      await file.read(tail, 0, tail.length, start);
      const length = completeMemberLength(tail);
      if (length !== undefined) {
        // Bytes after a complete member are the start of a partial one.
        end = start + length;
        break;
      }
      end = start;
    }
    if (end < size) {
      await file.truncate(end);
      await file.sync();
    }
    return { path, bytesBefore: size, bytesAfter: end };
  } finally {
    await file.close();
  }
}

/** The offset of the last member header that starts before `end`, or -1. */
async function lastHeaderBefore(
  file: Awaited<ReturnType<typeof open>>,
  end: number,
): Promise<number> {
  let to = end;
  while (to > 0) {
    const from = Math.max(0, to - SCAN_WINDOW);
    // Overlap the next window by a header's length so a header across the edge is seen.
    const length = Math.min(end, to + MEMBER_HEADER.length - 1) - from;
    const window = Buffer.alloc(length);
    await file.read(window, 0, length, from);
    for (let at = window.lastIndexOf(MEMBER_PREFIX); at >= 0; ) {
      if (isMemberHeader(window, at) && from + at < end) return from + at;
      at = at === 0 ? -1 : window.lastIndexOf(MEMBER_PREFIX, at - 1);
    }
    to = from;
  }
  return -1;
}
