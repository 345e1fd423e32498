/**
 * What the deployment checks share: the repository root they read files from, the crawler's
 * stop budget that compose and Kubernetes must both grant, the rule against running sources
 * through tsx (compose, the image and the pods all start the same program), and readers for
 * untyped YAML values, so a missing or mistyped field becomes a reported problem instead of
 * a check that throws.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root (this file lives in `<root>/deploy`). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * The crawler's graceful stop (stop claiming, release leases, hand off, leave) takes up to
 * ~30 s; the orchestrator must wait at least this long before SIGKILL.
 */
export const MIN_STOP_GRACE_SECONDS = 35;

export type Obj = Record<string, unknown>;

export function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function obj(value: unknown): Obj {
  return isObj(value) ? value : {};
}

export function arr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * Whether a container command runs TypeScript sources through tsx. The image ships the compiled
 * `dist/` and no tsx (a dev tool): such a command would fail there, or pay tsx's start-up memory.
 */
export function runsTypeScript(words: readonly string[]): boolean {
  return words.some((word) => /(^|\/)tsx$|\.[cm]?ts$/.test(word));
}
