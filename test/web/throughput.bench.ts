/**
 * Throughput of the test web: the standalone runner (`main.ts`, its own process) serving
 * 200 hosts with no hostile behaviours, driven by 32 concurrent keep-alive requests spread
 * over every host's pages, against a baseline in the same run: a bare node:http server
 * (its own process) answering every request with a fixed 1 KiB page.
 *
 *   node --import tsx test/web/throughput.bench.ts
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { request } from 'undici';
import { createTestWebAgent } from './agent.js';

const DURATION_MS = 5_000;
const CONCURRENCY = 32;
const root = new URL('../..', import.meta.url).pathname;

async function startChild(
  args: string[],
): Promise<{ child: ChildProcess; port: number; seeds: string[] }> {
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const [line] = (await once(lines, 'line')) as [string];
  const ready = JSON.parse(line) as { port: number; seeds?: string[] };
  return { child, port: ready.port, seeds: ready.seeds ?? [] };
}

async function drive(urls: string[]): Promise<{ perSecond: number; errors: number }> {
  const agent = createTestWebAgent({ connections: 2 });
  const deadline = performance.now() + DURATION_MS;
  let done = 0;
  let errors = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        const url = urls[next++ % urls.length] as string;
        try {
          const res = await request(url, { dispatcher: agent });
          await res.body.dump();
          if (res.statusCode === 200) done++;
          else errors++;
        } catch {
          errors++;
        }
      }
    }),
  );
  await agent.close();
  return { perSecond: done / (DURATION_MS / 1000), errors };
}

const baselineSource = `
  const body = Buffer.from('<!doctype html>' + 'x'.repeat(1009));
  const s = require('node:http').createServer({ keepAlive: true, keepAliveTimeout: 30000 }, (req, res) => {
    res.writeHead(200, { 'content-type': 'text/html', 'content-length': body.length });
    res.end(body);
  });
  s.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: s.address().port })));
`;

const web = await startChild([
  '--import',
  'tsx',
  'test/web/main.ts',
  '--hosts',
  '200',
  '--behaviours',
  'none',
]);
// Every host's root and first pages, interleaved so consecutive requests hit different hosts.
const webUrls: string[] = [];
for (const path of ['', 'p/1', 'p/2', 'p/3', 'p/4'])
  for (const seed of web.seeds) webUrls.push(seed + path);
const webResult = await drive(webUrls);
web.child.kill('SIGTERM');

const base = await startChild(['-e', baselineSource]);
const baseUrls = webUrls.map((u) => u.replace(/:\d+\//, `:${base.port}/`));
const baseResult = await drive(baseUrls);
base.child.kill('SIGTERM');

console.log(
  `test web (200 hosts)     ${webResult.perSecond.toFixed(0)} pages/s  errors ${webResult.errors}`,
);
console.log(
  `bare node:http baseline  ${baseResult.perSecond.toFixed(0)} pages/s  errors ${baseResult.errors}`,
);
console.log(`ratio test web / baseline ${(webResult.perSecond / baseResult.perSecond).toFixed(2)}`);
