/**
 * Validates the deployment files offline: `node --import tsx deploy/validate.ts`.
 *
 * - docker-compose.yml: deploy/compose.ts (the compose client's `config`, dclint, our rules).
 * - Dockerfile and .dockerignore: deploy/dockerfile.ts (dockerfile-utils, our rules).
 * - deploy/k8s: each kustomization rendered by `kubectl kustomize` (offline), then
 *   deploy/kubernetes.ts (OpenAPI schemas, cross-references, the crawler's handoff contract).
 *
 * Exits 1 and lists every problem if anything fails. The checks are exported from those
 * modules for test/deploy.test.ts, which feeds them broken inputs.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validateCompose } from './compose.js';
import { checkDockerfile, checkDockerignore } from './dockerfile.js';
import { renderKustomize, validateManifestText } from './kubernetes.js';
import { ROOT } from './shared.js';

/** Kustomize directories rendered and validated, relative to the root. */
export const KUSTOMIZATIONS = [
  'deploy/k8s/base',
  'deploy/k8s/overlays/hpa',
  'deploy/k8s/overlays/dev-redis',
];

/** One named group of checks and what it found (empty = passed). */
export interface CheckResult {
  name: string;
  problems: string[];
}

/** Runs every check on the repository's files. */
export async function validateAll(root: string = ROOT): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  results.push({
    name: 'docker-compose.yml',
    problems: validateCompose(join(root, 'docker-compose.yml')),
  });
  results.push({
    name: 'Dockerfile',
    problems: [
      ...checkDockerfile(readFileSync(join(root, 'Dockerfile'), 'utf8')),
      ...checkDockerignore(readFileSync(join(root, '.dockerignore'), 'utf8')),
    ],
  });
  for (const dir of KUSTOMIZATIONS) {
    let problems: string[];
    try {
      problems = await validateManifestText(renderKustomize(join(root, dir)));
    } catch (error) {
      const e = error as Error & { stderr?: string };
      problems = [`kubectl kustomize: ${(e.stderr || e.message).trim()}`];
    }
    results.push({ name: dir, problems });
  }
  return results;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const results = await validateAll();
  let failed = 0;
  for (const { name, problems } of results) {
    process.stdout.write(`${problems.length === 0 ? 'ok  ' : 'FAIL'} ${name}\n`);
    for (const problem of problems) process.stdout.write(`     - ${problem}\n`);
    if (problems.length > 0) failed += 1;
  }
  process.exitCode = failed > 0 ? 1 : 0;
}
