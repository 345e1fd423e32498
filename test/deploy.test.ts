/**
 * The deployment files pass deploy/validate.ts, and each check rejects a broken input, so a
 * green run means something. Needs the compose client (docker-compose) and kubectl (for
 * `kubectl kustomize`), both offline; .ci/run installs them.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  checkComposeModel,
  composeConfig,
  durationSeconds,
  validateCompose,
} from '../deploy/compose.js';
import { checkDockerfile } from '../deploy/dockerfile.js';
import { parseManifests, renderKustomize, validateManifestText } from '../deploy/kubernetes.js';
import { ROOT } from '../deploy/shared.js';
import { validateAll } from '../deploy/validate.js';

const scratch = mkdtempSync(join(tmpdir(), 'shardline-deploy-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
const composeText = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');
const base = renderKustomize(join(ROOT, 'deploy/k8s/base'));

type Tree = Record<string, unknown>;

/** The object at `path` inside `root` (throws if a step is missing). */
function at(root: unknown, ...path: (string | number)[]): Tree {
  let node = root;
  for (const step of path) {
    node = (node as Record<string | number, unknown> | undefined)?.[step];
    if (typeof node !== 'object' || node === null) throw new Error(`no ${path.join('.')}`);
  }
  return node as Tree;
}

/** The rendered base with one object changed by `edit`. */
function editBase(kind: string, name: string, edit: (o: Tree) => void): string {
  const { objects } = parseManifests(base);
  const target = objects.find(
    (o) => o.kind === kind && (o.metadata as { name: string }).name === name,
  );
  if (!target) throw new Error(`${kind}/${name} not in the base`);
  edit(target);
  return objects.map((o) => JSON.stringify(o)).join('\n---\n');
}

describe('the repository deployment files', () => {
  it('pass every check', async () => {
    const results = await validateAll();
    expect(results.map((r) => r.name)).toEqual([
      'docker-compose.yml',
      'Dockerfile',
      'deploy/k8s/base',
      'deploy/k8s/overlays/hpa',
      'deploy/k8s/overlays/dev-redis',
    ]);
    for (const result of results) expect(result.problems, result.name).toEqual([]);
  });
});

describe('compose checks', () => {
  const model = () => composeConfig(join(ROOT, 'docker-compose.yml')).model as Tree;

  it('rejects a file the compose client refuses', () => {
    const file = join(scratch, 'bad-compose.yml');
    writeFileSync(file, 'services:\n  x:\n    image: redis\n    stop_grace_period: [1]\n');
    const problems = validateCompose(file);
    expect(problems[0]).toMatch(/config: /);
  });

  it('rejects an API published on all interfaces', () => {
    const m = model();
    at(m, 'services', 'api').ports = ['8080:8080'];
    expect(checkComposeModel(m)).toContain('api: published on 0.0.0.0; publish on 127.0.0.1 only');
  });

  it('rejects a crawler that cannot scale or hand off', () => {
    const m = model();
    at(m, 'services', 'crawler').container_name = 'crawler';
    at(m, 'services', 'crawler').stop_grace_period = '10s';
    const problems = checkComposeModel(m);
    expect(problems).toContain('crawler: container_name prevents --scale crawler=N');
    expect(problems.some((p) => p.startsWith('crawler: stop_grace_period must be'))).toBe(true);
  });

  it('rejects Redis without AOF and a cluster profile with two nodes', () => {
    const m = model();
    at(m, 'services', 'redis').command = ['redis-server'];
    delete at(m, 'services')['redis-cluster-3'];
    const problems = checkComposeModel(m);
    expect(problems).toContain('redis: AOF must be on (command "--appendonly yes")');
    expect(problems).toContain('profile "cluster": needs 3 cluster-enabled Redis masters, found 2');
  });

  it('has a one-shot seed service, and rejects one that restarts or is missing', () => {
    const m = model();
    expect(at(m, 'services', 'seed').command).toEqual([
      'services/cli/bin/shardline.js',
      'seed',
      '--file',
      '/seeds/seeds.txt',
    ]);
    at(m, 'services', 'seed').restart = 'unless-stopped';
    expect(checkComposeModel(m)).toContain(
      'seed: a one-shot seed must not restart (restart: "no")',
    );
    delete at(m, 'services').seed;
    expect(checkComposeModel(m)).toContain('no one-shot service runs "shardline seed"');
  });

  it('rejects a service that runs TypeScript through tsx', () => {
    const m = model();
    at(m, 'services', 'crawler').command = ['--import', 'tsx', 'services/crawler/src/main.ts'];
    expect(checkComposeModel(m)).toContain(
      'crawler: command runs TypeScript through tsx; run the compiled dist/',
    );
  });

  it('rejects a top-level name (compose 1.29 cannot read it)', () => {
    expect(checkComposeModel({ ...model(), name: 'x' })[0]).toMatch(/top-level "name:"/);
  });

  it('keeps the file free of a top-level name', () => {
    expect(Object.keys(parse(composeText))).not.toContain('name');
  });

  it('reads compose durations', () => {
    expect(durationSeconds('45s')).toBe(45);
    expect(durationSeconds('1m30s')).toBe(90);
    expect(durationSeconds('500ms')).toBe(0.5);
    expect(durationSeconds('soon')).toBeNaN();
  });
});

describe('Dockerfile checks', () => {
  it('reports lint errors from dockerfile-utils', () => {
    const problems = checkDockerfile(`${dockerfile}\nEXPOSE http\nFOO bar\n`);
    expect(problems.some((p) => /Unknown instruction: FOO/.test(p))).toBe(true);
    expect(problems.some((p) => /Invalid containerPort: http/.test(p))).toBe(true);
  });

  it('rejects an image that runs as root or installs dev dependencies', () => {
    const rooted = dockerfile.replace('USER node', 'USER root');
    expect(checkDockerfile(rooted)).toContain('final stage runs as root (add USER <non-root>)');
    const dev = dockerfile.replace('npm ci --omit=dev', 'npm ci');
    expect(checkDockerfile(dev)).toContain('no "npm ci --omit=dev"');
  });

  it('rejects an image that runs TypeScript through tsx', () => {
    const sources = dockerfile.replace(
      'CMD ["services/crawler/dist/main.js"]',
      'CMD ["--import", "tsx", "services/crawler/src/main.ts"]',
    );
    expect(checkDockerfile(sources)).toContain(
      'final stage runs TypeScript through tsx; run the compiled dist/',
    );
  });

  it('rejects a single-stage image without a HEALTHCHECK', () => {
    const problems = checkDockerfile(
      'FROM node:20-bookworm-slim\nUSER node\nRUN npm ci --omit=dev\nCMD ["node"]\n',
    );
    expect(problems).toEqual(['not multi-stage (one FROM)', 'final stage has no HEALTHCHECK']);
  });
});

describe('Kubernetes checks', () => {
  it('rejects a Deployment with replicas: "two" (schema)', async () => {
    const broken = editBase('Deployment', 'shardline-api', (o) => {
      at(o, 'spec').replicas = 'two';
    });
    const problems = await validateManifestText(broken);
    expect(problems).toContain('Deployment/shardline-api: data/spec/replicas must be integer');
  });

  it('rejects a missing required field and an unknown kind (schema)', async () => {
    const broken = editBase('StatefulSet', 'shardline-crawler', (o) => {
      delete at(o, 'spec').selector;
    });
    const problems = await validateManifestText(
      `${broken}\n---\napiVersion: v1\nkind: Sprocket\nmetadata: {name: s}\n`,
    );
    expect(problems.some((p) => /^StatefulSet\/shardline-crawler: .*selector/.test(p))).toBe(true);
    expect(problems).toContain('Sprocket/s: no schema for v1 Sprocket');
  });

  it('rejects a crawler without preStop, grace period or /readyz', async () => {
    const broken = editBase('StatefulSet', 'shardline-crawler', (o) => {
      const container = at(o, 'spec', 'template', 'spec', 'containers', 0);
      delete container.lifecycle;
      at(container, 'readinessProbe', 'httpGet').path = '/healthz';
      at(o, 'spec', 'template', 'spec').terminationGracePeriodSeconds = 10;
    });
    const problems = await validateManifestText(broken);
    expect(problems).toEqual([
      'StatefulSet/shardline-crawler: terminationGracePeriodSeconds must be ≥ 35, got 10',
      'StatefulSet/shardline-crawler: container crawler has no preStop hook',
      'StatefulSet/shardline-crawler: container crawler readiness is not GET /readyz',
    ]);
  });

  it('rejects a container that runs TypeScript through tsx', async () => {
    const broken = editBase('StatefulSet', 'shardline-crawler', (o) => {
      at(o, 'spec', 'template', 'spec', 'containers', 0).args = [
        '--import',
        'tsx',
        'services/crawler/src/main.ts',
      ];
    });
    expect(await validateManifestText(broken)).toContain(
      'StatefulSet/shardline-crawler container crawler: runs TypeScript through tsx; run the compiled dist/',
    );
  });

  it('rejects dangling references between objects', async () => {
    const broken = editBase('Service', 'shardline-api', (o) => {
      at(o, 'spec', 'selector')['app.kubernetes.io/component'] = 'apx';
    });
    expect(await validateManifestText(broken)).toEqual([
      'Service/shardline-api: selector matches no workload',
    ]);
    const noSecret = parseManifests(base)
      .objects.filter((o) => o.kind !== 'Secret')
      .map((o) => JSON.stringify(o))
      .join('\n---\n');
    const problems = await validateManifestText(noSecret);
    expect(problems).toContain(
      'StatefulSet/shardline-crawler container crawler: envFrom Secret "shardline-secrets" is not in the manifests',
    );
  });

  it('rejects an HPA whose target pins spec.replicas', async () => {
    const hpa = renderKustomize(join(ROOT, 'deploy/k8s/overlays/hpa'));
    const { objects } = parseManifests(hpa);
    const sts = objects.find((o) => o.kind === 'StatefulSet');
    at(sts, 'spec').replicas = 3;
    const problems = await validateManifestText(
      objects.map((o) => JSON.stringify(o)).join('\n---\n'),
    );
    expect(problems).toEqual([
      'HorizontalPodAutoscaler/shardline-crawler: its target sets spec.replicas, which a re-apply resets',
    ]);
  });
});
