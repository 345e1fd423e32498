export { WarcError, WarcErrorCode } from './errors.js';
export {
  closedName,
  isOwnOpenFile,
  OPEN_SUFFIX,
  WARC_SUFFIX,
  warcFileName,
} from './file-names.js';
export { makeDirectory } from './make-directory.js';
export { type ReadRecord, readRecordAt, writeCdxj } from './reader.js';
export {
  type ArchivedRequest,
  type ArchivedResponse,
  type HeaderPairs,
  type RevisitOf,
  SERVER_NOT_MODIFIED_PROFILE,
  type WarcExchange,
} from './records.js';
export { completeMemberLength, type RepairReport, repairFile } from './repair.js';
export {
  ThreadedWarcWriter,
  type ThreadedWarcWriterOptions,
  type ThreadedWarcWriterStats,
} from './threaded-warc-writer.js';
export {
  type WarcLocation,
  WarcWriter,
  type WarcWriterOptions,
  type WarcWriterStats,
} from './warc-writer.js';
