/**
 * Validates the deployment files offline: `node --import tsx deploy/validate.ts`.
 *
 * - docker-compose.yml: the compose client's own `config` (v1 `docker-compose` or the v2
 *   plugin; neither needs an engine for it), dclint (errors only), then the rules the
 *   deployment relies on (AOF Redis with a healthcheck and a volume, scalable crawler with a
 *   handoff-sized stop grace period, API published on loopback only, the cluster profile).
 * - Dockerfile: dockerfile-utils (the Dockerfile validator of the Docker language server),
 *   then our rules (multi-stage, `npm ci --omit=dev`, non-root user, HEALTHCHECK, no Redis).
 * - deploy/k8s: each kustomization rendered by `kubectl kustomize` (offline), every object
 *   checked against the official Kubernetes OpenAPI schemas shipped by `kubernetes-models`,
 *   then cross-references (selectors, named ports, ConfigMap/Secret refs, HPA target) and
 *   the crawler's graceful-handoff contract (preStop, grace period, /readyz).
 *
 * Exits 1 and lists every problem if anything fails. The checks are exported for
 * test/deploy.test.ts, which feeds them broken inputs.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validate as lintDockerfileText } from 'dockerfile-utils';
import { parseAllDocuments, parse as parseYaml } from 'yaml';

/** Repository root (this file lives in `<root>/deploy`). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Kustomize directories rendered and validated, relative to the root. */
export const KUSTOMIZATIONS = [
  'deploy/k8s/base',
  'deploy/k8s/overlays/hpa',
  'deploy/k8s/overlays/dev-redis',
];

/**
 * The crawler's graceful stop (stop claiming, release leases, hand off, leave) takes up to
 * ~30 s; the orchestrator must wait at least this long before SIGKILL.
 */
export const MIN_STOP_GRACE_SECONDS = 35;

/** One named group of checks and what it found (empty = passed). */
export interface CheckResult {
  name: string;
  problems: string[];
}

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function obj(value: unknown): Obj {
  return isObj(value) ? value : {};
}

function arr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

// --- docker compose ---------------------------------------------------------------------------

/** The compose client to use: `DOCKER_COMPOSE` (a command line), `docker-compose`, `docker compose`. */
export function composeCommand(): string[] {
  const configured = process.env.DOCKER_COMPOSE?.trim();
  if (configured) return configured.split(/\s+/);
  if (spawnSync('docker-compose', ['version'], { stdio: 'ignore' }).status === 0) {
    return ['docker-compose'];
  }
  if (spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status === 0) {
    return ['docker', 'compose'];
  }
  throw new Error('no compose client: install docker-compose (Debian) or the compose plugin');
}

/**
 * Runs `<compose> -f file [--profile p] config` and returns the normalised model, or the
 * client's error text. Variables are not taken from the caller's environment, so the
 * file's own defaults are what is checked.
 */
export function composeConfig(
  file: string,
  profile?: string,
): { model?: Obj; error?: string; client: string } {
  const [command, ...prefix] = composeCommand();
  const args = [...prefix, '-f', file];
  if (profile) args.push('--profile', profile);
  args.push('config');
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  const run = spawnSync(command!, args, { encoding: 'utf8', env, cwd: dirname(file) });
  const client = [command, ...prefix].join(' ');
  if (run.status !== 0) {
    return { client, error: (run.stderr || run.stdout || `exit ${run.status}`).trim() };
  }
  return { client, model: obj(parseYaml(run.stdout)) };
}

/** `1m30s`, `45s`, `500ms` → seconds (compose duration syntax); NaN if unreadable. */
export function durationSeconds(text: unknown): number {
  if (typeof text === 'number') return text / 1e9; // compose v2 may print nanoseconds
  if (typeof text !== 'string' || text.trim() === '') return Number.NaN;
  const units: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 1e-3, us: 1e-6, ns: 1e-9 };
  let total = 0;
  let rest = text.trim();
  while (rest !== '') {
    const match = /^(\d+(?:\.\d+)?)(h|ms|m|s|us|ns)/.exec(rest);
    if (!match) return Number.NaN;
    total += Number(match[1]) * units[match[2]!]!;
    rest = rest.slice(match[0].length);
  }
  return total;
}

function commandOf(service: Obj): string[] {
  const command = service.command;
  if (Array.isArray(command)) return command.map(String);
  return typeof command === 'string' ? command.split(/\s+/) : [];
}

/**
 * Whether a container command runs TypeScript sources through tsx. The image ships the compiled
 * `dist/` and no tsx (a dev tool): such a command would fail there, or pay tsx's start-up memory.
 */
function runsTypeScript(words: readonly string[]): boolean {
  return words.some((word) => /(^|\/)tsx$|\.[cm]?ts$/.test(word));
}

function flagValue(command: string[], flag: string): string | undefined {
  const i = command.indexOf(flag);
  return i >= 0 ? command[i + 1] : undefined;
}

/** Published host addresses of a service's ports (short and long syntax). */
function publishedHostIps(service: Obj): string[] {
  return arr(service.ports).map((port) => {
    if (isObj(port)) return str(port.host_ip) ?? '0.0.0.0';
    const text = String(port);
    // host_ip:published:target[/proto]; IPv6 hosts come bracketed.
    const bracketed = /^\[([^\]]+)\]:/.exec(text);
    if (bracketed) return bracketed[1]!;
    const parts = text.split('/')[0]!.split(':');
    return parts.length >= 3 ? parts[0]! : '0.0.0.0';
  });
}

/**
 * Rules on the normalised compose model (`config` output). `clusterModel` is the model with
 * `--profile cluster` where the client filters by profile (v2), else the same model.
 */
export function checkComposeModel(model: Obj): string[] {
  const problems: string[] = [];
  const services = obj(model.services);
  if ('name' in model) {
    problems.push('top-level "name:" is not supported by docker-compose 1.29; leave it out');
  }

  const redis = obj(services.redis);
  if (!isObj(services.redis)) problems.push('no "redis" service');
  else {
    const command = commandOf(redis);
    if (flagValue(command, '--appendonly') !== 'yes') {
      problems.push('redis: AOF must be on (command "--appendonly yes")');
    }
    if (arr(obj(redis.healthcheck).test).length === 0) problems.push('redis: no healthcheck');
    const dataVolume = arr(redis.volumes).some((volume) =>
      isObj(volume) ? volume.target === '/data' : /:\/data(:|$)/.test(String(volume)),
    );
    if (!dataVolume) problems.push('redis: no volume mounted at /data');
  }

  for (const [name, service] of Object.entries(services)) {
    if (runsTypeScript(commandOf(obj(service)))) {
      problems.push(`${name}: command runs TypeScript through tsx; run the compiled dist/`);
    }
  }

  const crawler = obj(services.crawler);
  if (!isObj(services.crawler)) problems.push('no "crawler" service');
  else {
    if (!crawler.build && !crawler.image) problems.push('crawler: neither build nor image');
    if ('container_name' in crawler) {
      problems.push('crawler: container_name prevents --scale crawler=N');
    }
    if (arr(crawler.ports).length > 0) {
      problems.push('crawler: published ports collide under --scale crawler=N');
    }
    const grace = durationSeconds(crawler.stop_grace_period);
    if (!(grace >= MIN_STOP_GRACE_SECONDS)) {
      problems.push(
        `crawler: stop_grace_period must be ≥ ${MIN_STOP_GRACE_SECONDS}s for the handoff, got ${String(crawler.stop_grace_period)}`,
      );
    }
    if (!obj(crawler.depends_on).redis && !arr(crawler.depends_on).includes('redis')) {
      problems.push('crawler: does not depend on redis');
    }
  }

  const api = obj(services.api);
  if (!isObj(services.api)) problems.push('no "api" service');
  else {
    const ips = publishedHostIps(api);
    if (ips.length === 0) problems.push('api: not published');
    for (const ip of ips) {
      if (ip !== '127.0.0.1' && ip !== '::1' && ip !== 'localhost') {
        problems.push(`api: published on ${ip}; publish on 127.0.0.1 only`);
      }
    }
  }

  // Seeding without hand-written curl: a one-shot service running `shardline seed`.
  const seeders = Object.entries(services).filter(([, service]) => {
    const command = commandOf(obj(service));
    return command.some((part) => /shardline(\.js)?$/.test(part)) && command.includes('seed');
  });
  if (seeders.length === 0) problems.push('no one-shot service runs "shardline seed"');
  for (const [name, service] of seeders) {
    const s = obj(service);
    if (s.restart !== undefined && s.restart !== 'no') {
      problems.push(`${name}: a one-shot seed must not restart (restart: "no")`);
    }
    if (!obj(s.depends_on).redis) problems.push(`${name}: does not depend on redis`);
  }

  const clusterNodes = Object.entries(services).filter(([, service]) => {
    const s = obj(service);
    const command = commandOf(s);
    return arr(s.profiles).includes('cluster') && flagValue(command, '--cluster-enabled') === 'yes';
  });
  if (clusterNodes.length < 3) {
    problems.push(
      `profile "cluster": needs 3 cluster-enabled Redis masters, found ${clusterNodes.length}`,
    );
  }
  for (const [name, service] of clusterNodes) {
    if (flagValue(commandOf(obj(service)), '--appendonly') !== 'yes') {
      problems.push(`${name}: AOF must be on`);
    }
  }
  const init = Object.entries(services).some(
    ([, service]) =>
      arr(obj(service).profiles).includes('cluster') &&
      JSON.stringify(obj(service).command ?? '').includes('--cluster create'),
  );
  if (!init) problems.push('profile "cluster": no service runs "redis-cli --cluster create"');
  return problems;
}

/** dclint (errors only: its warnings are key-order style) on a compose file. */
export function dclint(file: string): string[] {
  const bin = join(ROOT, 'node_modules', 'dclint', 'bin', 'dclint.cjs');
  const entry = existsSync(bin) ? bin : join(ROOT, 'node_modules', '.bin', 'dclint');
  const run = spawnSync(process.execPath, [entry, file, '-q', '--color', 'false'], {
    encoding: 'utf8',
  });
  if (run.status === 0) return [];
  return [`dclint: ${(run.stdout + run.stderr).trim()}`];
}

/** Everything about one compose file. */
export function validateCompose(file: string): string[] {
  const { model, error, client } = composeConfig(file);
  if (error || !model) return [`${client} config: ${error}`];
  const problems = checkComposeModel(model);
  const withProfile = composeConfig(file, 'cluster');
  if (withProfile.error) problems.push(`${client} --profile cluster config: ${withProfile.error}`);
  return [...problems, ...dclint(file)];
}

// --- Dockerfile -------------------------------------------------------------------------------

interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

/** Instructions of a Dockerfile (comments dropped, `\` continuations joined). */
export function dockerInstructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  let buffer = '';
  let start = 0;
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (buffer === '' && (line === '' || line.startsWith('#'))) return;
    if (buffer !== '' && line.startsWith('#')) return;
    if (buffer === '') start = index + 1;
    if (line.endsWith('\\')) {
      buffer += `${line.slice(0, -1)} `;
      return;
    }
    buffer += line;
    const match = /^(\S+)\s*(.*)$/s.exec(buffer);
    if (match) out.push({ keyword: match[1]!.toUpperCase(), args: match[2]!, line: start });
    buffer = '';
  });
  return out;
}

/** dockerfile-utils diagnostics (errors and warnings) plus the image rules we rely on. */
export function checkDockerfile(text: string): string[] {
  const problems = lintDockerfileText(text).map(
    (d) =>
      `line ${d.range.start.line + 1}: ${d.message} (dockerfile-utils ${d.severity === 1 ? 'error' : 'warning'})`,
  );
  const instructions = dockerInstructions(text);
  const froms = instructions.filter((i) => i.keyword === 'FROM');
  if (froms.length < 2) problems.push('not multi-stage (one FROM)');
  const lastFrom = instructions.lastIndexOf(froms.at(-1)!);
  const final = instructions.slice(lastFrom);
  const users = final.filter((i) => i.keyword === 'USER');
  const user = users.at(-1)?.args.split(':')[0]?.trim();
  if (!user || user === 'root' || user === '0') {
    problems.push('final stage runs as root (add USER <non-root>)');
  }
  const npmCi = instructions.filter((i) => i.keyword === 'RUN' && /\bnpm ci\b/.test(i.args));
  if (!npmCi.some((i) => /--omit[= ]dev\b/.test(i.args))) {
    problems.push('no "npm ci --omit=dev"');
  }
  if (!final.some((i) => i.keyword === 'HEALTHCHECK' && !/^NONE\b/i.test(i.args))) {
    problems.push('final stage has no HEALTHCHECK');
  }
  const starts = final.filter((i) => i.keyword === 'ENTRYPOINT' || i.keyword === 'CMD');
  if (starts.some((i) => runsTypeScript(i.args.split(/[\s",[\]]+/)))) {
    problems.push('final stage runs TypeScript through tsx; run the compiled dist/');
  }
  if (
    instructions.some((i) => i.keyword === 'RUN' && /\b(apt-get|apk)\b.*\bredis\b/.test(i.args))
  ) {
    problems.push(
      'installs Redis: compose and Kubernetes use a Redis service; keep the image lean',
    );
  }
  return problems;
}

/** Rules on .dockerignore: the context must not ship node_modules, .git or local data. */
export function checkDockerignore(text: string): string[] {
  const lines = new Set(
    text
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#')),
  );
  const problems: string[] = [];
  for (const need of ['**/node_modules', '.git', '.shardline']) {
    if (!lines.has(need)) problems.push(`.dockerignore: missing "${need}"`);
  }
  return problems;
}

// --- Kubernetes -------------------------------------------------------------------------------

/** `kubectl kustomize dir` (KUBECTL overrides the binary). Throws with kubectl's message. */
export function renderKustomize(dir: string): string {
  const kubectl = process.env.KUBECTL?.trim() || 'kubectl';
  return execFileSync(kubectl, ['kustomize', dir], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Splits a multi-document YAML stream into objects (YAML syntax errors are problems). */
export function parseManifests(text: string): { objects: Obj[]; problems: string[] } {
  const objects: Obj[] = [];
  const problems: string[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0) {
      problems.push(...doc.errors.map((e) => `YAML: ${e.message}`));
      continue;
    }
    const value = doc.toJS();
    if (value === null || value === undefined) continue;
    if (!isObj(value)) problems.push('YAML: a document is not an object');
    else objects.push(value);
  }
  return { objects, problems };
}

function describe(o: Obj): string {
  return `${str(o.kind) ?? '?'}/${str(obj(o.metadata).name) ?? '?'}`;
}

/**
 * Validates one object against the Kubernetes OpenAPI schema of its apiVersion/kind
 * (kubernetes-models: Kubernetes 1.27 schemas, compiled with Ajv). Types, formats, enums
 * and required fields are enforced; unknown fields are not (as kubeconform without -strict).
 */
export async function schemaProblems(o: Obj): Promise<string[]> {
  const apiVersion = str(o.apiVersion);
  const kind = str(o.kind);
  if (!apiVersion || !kind) return [`${describe(o)}: apiVersion and kind are required`];
  if (!/^[A-Za-z0-9]+$/.test(kind) || !/^[a-z0-9.]+(\/[a-z0-9]+)?$/.test(apiVersion)) {
    return [`${describe(o)}: unexpected apiVersion/kind ${apiVersion}/${kind}`];
  }
  let Model: (new (data: Obj) => { validate(): void }) | undefined;
  try {
    // Resolved at run time through the package's exports map (one module per kind).
    const specifier = `kubernetes-models/${apiVersion}/${kind}`;
    const mod = (await import(/* @vite-ignore */ specifier)) as Obj;
    Model = mod[kind] as typeof Model;
  } catch {
    Model = undefined;
  }
  if (!Model) return [`${describe(o)}: no schema for ${apiVersion} ${kind}`];
  try {
    new Model(o).validate();
    return [];
  } catch (error) {
    return [`${describe(o)}: ${(error as Error).message.replace(/\s+/g, ' ')}`];
  }
}

function matches(selector: Obj, labels: Obj): boolean {
  const entries = Object.entries(selector);
  return entries.length > 0 && entries.every(([k, v]) => labels[k] === v);
}

interface Workload {
  object: Obj;
  podLabels: Obj;
  podSpec: Obj;
  containers: Obj[];
}

function workloads(objects: Obj[]): Workload[] {
  return objects
    .filter((o) => ['Deployment', 'StatefulSet', 'DaemonSet'].includes(String(o.kind)))
    .map((object) => {
      const template = obj(obj(object.spec).template);
      const podSpec = obj(template.spec);
      return {
        object,
        podLabels: obj(obj(template.metadata).labels),
        podSpec,
        containers: arr(podSpec.containers).map(obj),
      };
    });
}

function probePort(probe: Obj): unknown {
  return obj(probe.httpGet).port ?? obj(probe.tcpSocket).port ?? obj(probe.grpc).port;
}

/** Cross-object and project rules on a rendered set of manifests. */
export function checkManifests(objects: Obj[]): string[] {
  const problems: string[] = [];
  const byKind = (kind: string) => objects.filter((o) => o.kind === kind);
  const names = (kind: string) => new Set(byKind(kind).map((o) => obj(o.metadata).name));
  const configMaps = names('ConfigMap');
  const secrets = names('Secret');
  const loads = workloads(objects);

  for (const w of loads) {
    const id = describe(w.object);
    const spec = obj(w.object.spec);
    if (!matches(obj(obj(spec.selector).matchLabels), w.podLabels)) {
      problems.push(`${id}: selector.matchLabels does not match the pod template labels`);
    }
    const podSecurity = obj(w.podSpec.securityContext);
    for (const c of w.containers) {
      const cid = `${id} container ${String(c.name)}`;
      const requests = obj(obj(c.resources).requests);
      if (!requests.cpu || !requests.memory) problems.push(`${cid}: no cpu/memory requests`);
      if (!c.readinessProbe) problems.push(`${cid}: no readinessProbe`);
      if (!c.livenessProbe) problems.push(`${cid}: no livenessProbe`);
      if (runsTypeScript([...arr(c.command), ...arr(c.args)].map(String))) {
        problems.push(`${cid}: runs TypeScript through tsx; run the compiled dist/`);
      }
      const runAsNonRoot = obj(c.securityContext).runAsNonRoot ?? podSecurity.runAsNonRoot;
      if (runAsNonRoot !== true) problems.push(`${cid}: runAsNonRoot is not set`);
      const portNames = new Set(arr(c.ports).map((p) => obj(p).name));
      const portNumbers = new Set(arr(c.ports).map((p) => obj(p).containerPort));
      for (const probeName of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
        const port = probePort(obj(c[probeName]));
        if (typeof port === 'string' && !portNames.has(port)) {
          problems.push(`${cid}: ${probeName} uses port "${port}", not a named container port`);
        }
        if (typeof port === 'number' && !portNumbers.has(port) && !isObj(obj(c[probeName]).exec)) {
          problems.push(`${cid}: ${probeName} uses port ${port}, not a container port`);
        }
      }
      for (const from of arr(c.envFrom).map(obj)) {
        const cm = str(obj(from.configMapRef).name);
        const sec = str(obj(from.secretRef).name);
        if (cm && !configMaps.has(cm) && obj(from.configMapRef).optional !== true) {
          problems.push(`${cid}: envFrom ConfigMap "${cm}" is not in the manifests`);
        }
        if (sec && !secrets.has(sec) && obj(from.secretRef).optional !== true) {
          problems.push(`${cid}: envFrom Secret "${sec}" is not in the manifests`);
        }
      }
      for (const env of arr(c.env).map(obj)) {
        const ref = obj(obj(env.valueFrom).configMapKeyRef);
        const sref = obj(obj(env.valueFrom).secretKeyRef);
        if (ref.name && !configMaps.has(ref.name) && ref.optional !== true) {
          problems.push(`${cid}: env ${String(env.name)} refers to missing ConfigMap ${ref.name}`);
        }
        if (sref.name && !secrets.has(sref.name) && sref.optional !== true) {
          problems.push(`${cid}: env ${String(env.name)} refers to missing Secret ${sref.name}`);
        }
      }
    }
    if (w.object.kind === 'StatefulSet') {
      const service = byKind('Service').find(
        (s) => obj(s.metadata).name === spec.serviceName && obj(s.spec).clusterIP === 'None',
      );
      if (!service) {
        problems.push(`${id}: serviceName "${String(spec.serviceName)}" is not a headless Service`);
      }
    }
  }

  for (const service of byKind('Service')) {
    const id = describe(service);
    const selector = obj(obj(service.spec).selector);
    const targets = loads.filter((w) => matches(selector, w.podLabels));
    if (targets.length === 0) {
      problems.push(`${id}: selector matches no workload`);
      continue;
    }
    for (const port of arr(obj(service.spec).ports).map(obj)) {
      const target = port.targetPort;
      if (typeof target !== 'string') continue;
      const found = targets.some((w) =>
        w.containers.some((c) => arr(c.ports).some((p) => obj(p).name === target)),
      );
      if (!found) problems.push(`${id}: targetPort "${target}" is no named port of its pods`);
    }
  }

  for (const pdb of byKind('PodDisruptionBudget')) {
    const selector = obj(obj(obj(pdb.spec).selector).matchLabels);
    if (!loads.some((w) => matches(selector, w.podLabels))) {
      problems.push(`${describe(pdb)}: selector matches no workload`);
    }
  }

  for (const hpa of byKind('HorizontalPodAutoscaler')) {
    const ref = obj(obj(hpa.spec).scaleTargetRef);
    const target = loads.find(
      (w) => w.object.kind === ref.kind && obj(w.object.metadata).name === ref.name,
    );
    if (!target) {
      problems.push(
        `${describe(hpa)}: scaleTargetRef ${String(ref.kind)}/${String(ref.name)} not found`,
      );
    } else if (obj(target.object.spec).replicas !== undefined) {
      problems.push(`${describe(hpa)}: its target sets spec.replicas, which a re-apply resets`);
    }
  }

  // The crawler pods' contract: stable ids, graceful handoff, readiness from /readyz.
  const crawlers = loads.filter((w) => w.podLabels['app.kubernetes.io/component'] === 'crawler');
  if (crawlers.length === 0) problems.push('no crawler workload (component=crawler)');
  for (const w of crawlers) {
    const id = describe(w.object);
    if (w.object.kind !== 'StatefulSet') problems.push(`${id}: crawler must be a StatefulSet`);
    const grace = w.podSpec.terminationGracePeriodSeconds;
    if (typeof grace !== 'number' || grace < MIN_STOP_GRACE_SECONDS) {
      problems.push(
        `${id}: terminationGracePeriodSeconds must be ≥ ${MIN_STOP_GRACE_SECONDS}, got ${String(grace)}`,
      );
    }
    for (const c of w.containers) {
      if (!obj(obj(c.lifecycle).preStop).exec && !obj(obj(c.lifecycle).preStop).httpGet) {
        problems.push(`${id}: container ${String(c.name)} has no preStop hook`);
      }
      if (obj(obj(c.readinessProbe).httpGet).path !== '/readyz') {
        problems.push(`${id}: container ${String(c.name)} readiness is not GET /readyz`);
      }
      const podId = arr(c.env)
        .map(obj)
        .find((e) => e.name === 'POD_ID');
      if (obj(obj(obj(podId).valueFrom).fieldRef).fieldPath !== 'metadata.name') {
        problems.push(`${id}: POD_ID must come from metadata.name (the stable pod name)`);
      }
    }
  }
  if (!objects.some((o) => o.kind === 'PodDisruptionBudget')) {
    problems.push('no PodDisruptionBudget');
  }
  return problems;
}

/** Schema + rules on a YAML stream of manifests. */
export async function validateManifestText(text: string): Promise<string[]> {
  const { objects, problems } = parseManifests(text);
  for (const o of objects) problems.push(...(await schemaProblems(o)));
  problems.push(...checkManifests(objects));
  return problems;
}

// --- everything -------------------------------------------------------------------------------

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
