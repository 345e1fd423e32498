/**
 * Kubernetes checks on rendered manifests (deploy/k8s, through `kubectl kustomize`, offline).
 * Every object is checked against the official Kubernetes OpenAPI schemas shipped by
 * `kubernetes-models`, then the cross-references a schema cannot see (selectors, named ports,
 * ConfigMap/Secret refs, HPA target) and the crawler's graceful-handoff contract (preStop,
 * grace period, /readyz, stable pod ids).
 */
import { execFileSync } from 'node:child_process';
import { parseAllDocuments } from 'yaml';
import {
  arr,
  isObj,
  MIN_STOP_GRACE_SECONDS,
  type Obj,
  obj,
  runsTypeScript,
  str,
} from './shared.js';

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
