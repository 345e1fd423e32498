/**
 * docker-compose.yml checks. The compose client's own `config` (v1 `docker-compose` or the v2
 * plugin; neither needs an engine for it) proves the file loads and normalises it, dclint
 * (errors only) catches schema mistakes, then the rules the deployment relies on: AOF Redis
 * with a healthcheck and a volume, a crawler that scales and gets a handoff-sized stop grace
 * period, the API published on loopback only, a one-shot seed and the cluster profile.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import {
  arr,
  isObj,
  MIN_STOP_GRACE_SECONDS,
  type Obj,
  obj,
  ROOT,
  runsTypeScript,
  str,
} from './shared.js';

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
 * Rules on the normalised compose model (`config` output). The cluster profile is checked
 * apart, by the client rendering the file with `--profile cluster` (validateCompose).
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
