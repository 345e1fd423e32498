/**
 * Keeps the start of a pod quiet: undici's decompress interceptor, which the fetcher uses on
 * purpose (pinned version, covered by the fetcher's tests), announces itself with an
 * ExperimentalWarning in every process that builds a Fetcher (`shardline crawl`, the demo, a
 * program that embeds a CrawlerPod). Only that warning is dropped; every other warning is
 * emitted as before.
 */
const KNOWN = [/^DecompressInterceptor is experimental/];

let installed = false;

/** Drops the known experimental warnings of the pod's dependencies (idempotent). */
export function quietKnownWarnings(): void {
  if (installed) return;
  installed = true;
  const emit = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (KNOWN.some((pattern) => pattern.test(text))) return;
    emit(warning, ...rest);
  }) as typeof process.emitWarning;
}
