/**
 * Dockerfile and .dockerignore checks. dockerfile-utils (the Dockerfile validator of the Docker
 * language server) catches syntax mistakes; our rules keep the image what compose and
 * Kubernetes expect: multi-stage, production dependencies only (`npm ci --omit=dev`), a
 * non-root user, a HEALTHCHECK, the compiled dist/ rather than tsx, and no Redis inside.
 */
import { validate as lintDockerfileText } from 'dockerfile-utils';
import { runsTypeScript } from './shared.js';

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
