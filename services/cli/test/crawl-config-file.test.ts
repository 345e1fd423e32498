/**
 * A config file's values reach the pod (issue 14): `shardline crawl` with the embedded Redis
 * and a `shardline.yaml` in its data dir fetches with the file's User-Agent token, under the
 * file's prefix, and stops by the file's exitWhenIdle; a flag still beats the file.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliWith } from './run-cli-with.js';

let web: Server;
let port = 0;
let dir: string;
const agents: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'shardline-crawl-config-'));
  web = createServer((req, res) => {
    if (req.url === '/robots.txt') {
      res.writeHead(404).end();
      return;
    }
    agents.push(req.headers['user-agent'] ?? '');
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>ok</body></html>');
  });
  await new Promise<void>((done) => web.listen(0, '127.0.0.1', done));
  port = (web.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((done) => web.close(done));
  rmSync(dir, { recursive: true, force: true });
});

describe('crawl with a config file', () => {
  it('uses the settings of shardline.yaml in the data dir, under the flags', async () => {
    writeFileSync(
      join(dir, 'shardline.yaml'),
      [
        'userAgentToken: FileBot',
        'allowPrivateAddresses: true',
        'minDelayMs: 0',
        'exitWhenIdle: 300',
        'prefix: fromfile',
        'noWarc: true',
        '',
      ].join('\n'),
    );
    const result = await runCliWith(
      ['crawl', '--data-dir', dir, '--json', `http://127.0.0.1:${port}/ok`],
      { cwd: dir },
    );
    expect(result.stderr).not.toContain('error:');
    expect(result.code).toBe(0);
    expect(agents).toHaveLength(1);
    expect(agents[0]).toMatch(/^FileBot\b/);
    expect(JSON.parse(result.stdout.trim())).toMatchObject({ fetched: 1 });

    // A flag beats the file: another token, and a new prefix so the URL is new again.
    const flagged = await runCliWith(
      [
        'crawl',
        '--data-dir',
        dir,
        '--json',
        '--user-agent',
        'FlagBot',
        '--prefix',
        'fromflag',
        `http://127.0.0.1:${port}/ok`,
      ],
      { cwd: dir },
    );
    expect(flagged.code).toBe(0);
    expect(agents).toHaveLength(2);
    expect(agents[1]).toMatch(/^FlagBot\b/);
  }, 120_000);
});
