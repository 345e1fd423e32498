export { WarcError, WarcErrorCode } from './errors.js';
export { isOwnOpenFile, OPEN_SUFFIX, WARC_SUFFIX, warcFileName } from './file-names.js';
export { type ReadRecord, readRecordAt, writeCdxj } from './reader.js';
export type { ArchivedRequest, ArchivedResponse, HeaderPairs, WarcExchange } from './records.js';
export { completeMemberLength, type RepairReport, repairFile } from './repair.js';
export {
  type WarcLocation,
  WarcWriter,
  type WarcWriterOptions,
  type WarcWriterStats,
} from './warc-writer.js';
