import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WarcWriter } from '@shardline/warc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasStackTrace, runCli } from './run-cli.js';
import { runCliWith } from './run-cli-with.js';

let dir: string;
let file: string;
let offsets: number[];
/** The SURT keys of the three responses, in the order pywb needs. */
const SORTED_KEYS = ['test,example)/0', 'test,example)/a', 'test,example)/b'];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'warc-cli-'));
  const writer = await WarcWriter.open({ dir, pod: 'cli' });
  offsets = [];
  // Written out of key order: the index sorts them.
  for (const path of ['/a', '/b', '/0']) {
    const at = await writer.write({
      url: `http://example.test${path}`,
      sentAtMs: Date.parse('2026-03-04T05:06:07Z'),
      request: { headers: [['user-agent', 'shardline/0.1']] },
      response: {
        status: 200,
        statusText: 'OK',
        headers: [['Content-Type', 'text/html']],
        body: Buffer.from(`<p>${path}</p>`),
      },
    });
    offsets.push(at.offset);
    file = join(dir, at.file);
  }
  await writer.close();
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('shardline warc', () => {
  it('index prints one CDXJ line per response, sorted as pywb reads them', async () => {
    const { code, stdout } = await runCli(['warc', 'index', file]);
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines.map((line) => line.split(' ')[0])).toEqual(SORTED_KEYS);
    expect(lines[1]).toMatch(/^test,example\)\/a 20260304050607 \{/);
    const json = JSON.parse(lines[2]!.slice(lines[2]!.indexOf('{')));
    expect(json).toMatchObject({
      url: 'http://example.test/b',
      mime: 'text/html',
      status: '200',
      offset: String(offsets[1]),
    });
  });

  it('index --unsorted streams the lines in file order', async () => {
    const { code, stdout } = await runCli(['warc', 'index', '--unsorted', file]);
    expect(code).toBe(0);
    expect(
      stdout
        .trim()
        .split('\n')
        .map((line) => line.split(' ')[0]),
    ).toEqual(['test,example)/a', 'test,example)/b', 'test,example)/0']);
  });

  it('get prints the record at FILE:OFFSET as stored', async () => {
    const { code, stdout } = await runCli(['warc', 'get', `${file}:${offsets[1]}`]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^WARC\/1\.1\r\n/);
    expect(stdout).toContain('WARC-Target-URI: http://example.test/b\r\n');
    expect(stdout).toContain('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>/b</p>\r\n\r\n');
    expect(stdout).not.toContain('/a');
  });

  it('get finds a bare file name (a result’s warcFile) in the WARC directory, and as the .open file being written', async () => {
    const name = file.slice(dir.length + 1);
    const at = `${name}:${offsets[1]}`;
    // As `shardline crawl` leaves it: <data-dir>/warc, the command run where the crawl was.
    const cwd = join(dir, 'run');
    mkdirSync(join(cwd, '.shardline', 'warc'), { recursive: true });
    copyFileSync(file, join(cwd, '.shardline', 'warc', name));
    const inDataDir = await runCliWith(['warc', 'get', at], { cwd });
    expect(inDataDir.stderr).toBe('');
    expect(inDataDir.stdout).toContain('WARC-Target-URI: http://example.test/b\r\n');
    const inWarcDir = await runCliWith(['warc', 'get', '--warc-dir', dir, at]);
    expect(inWarcDir.stdout).toContain('WARC-Target-URI: http://example.test/b\r\n');
    // Its pod still writes it: the result already names it as it will be once closed.
    const openDir = join(dir, 'still-open');
    mkdirSync(openDir);
    copyFileSync(file, join(openDir, `${name}.open`));
    const open = await runCliWith(['warc', 'get', '--warc-dir', openDir, at]);
    expect(open.stdout).toContain('WARC-Target-URI: http://example.test/b\r\n');
    const nowhere = await runCliWith(['warc', 'get', '--warc-dir', join(dir, 'nope'), at]);
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr.trim()).toBe(
      `error: cannot read ${name}: no such file (nor in ${join(dir, 'nope')}: name its directory with --warc-dir)`,
    );
  });

  it('refuses a bad location or offset in one line', async () => {
    const bad = await runCli(['warc', 'get', file]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('expected FILE:OFFSET');
    const off = await runCli(['warc', 'get', `${file}:${offsets[1]! + 1}`]);
    expect(off.code).toBe(1);
    expect(off.stderr).toContain(`${file}:${offsets[1]! + 1}`);
    expect(off.stderr.trim().split('\n')).toHaveLength(1);
    expect(hasStackTrace(off.stderr)).toBe(false);
    const missing = await runCli(['warc', 'index', join(dir, 'nope.warc.gz')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no such file');
  });

  it('index of a file cut inside a record prints every whole record, then says where it is cut', async () => {
    // What kill -9 of a pod mid-write leaves: the last record's gzip member cut short.
    const whole = readFileSync(file);
    const cut = join(dir, 'cut.warc.gz');
    writeFileSync(cut, whole.subarray(0, offsets[2]! + 40));
    const { code, stdout, stderr } = await runCli(['warc', 'index', cut]);
    expect(code).toBe(1);
    expect(
      stdout
        .trim()
        .split('\n')
        .map((line) => line.split(' ')[0]),
    ).toEqual(['test,example)/a', 'test,example)/b']);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`${cut} ends inside a record`);
    expect(lines[0]).toContain('the records before the cut are indexed');
    expect(hasStackTrace(stderr)).toBe(false);
  });

  it('index of an .open file notes that the name changes once its pod closes it', async () => {
    const open = join(dir, 'shardline-20260304050607000-cli-00009.warc.gz.open');
    copyFileSync(file, open);
    const { code, stdout, stderr } = await runCli(['warc', 'index', open]);
    expect(code).toBe(0);
    expect(stdout.trim().split('\n')).toHaveLength(3);
    expect(stderr).toContain(`note: ${open} is still open`);
    expect(stderr).toContain('shardline-20260304050607000-cli-00009.warc.gz');
  });

  it("index of a directory (a crawl's --warc-dir) reads its closed WARC files, and says which open ones it left out", async () => {
    const warcDir = join(dir, 'warc-dir');
    mkdirSync(warcDir);
    copyFileSync(file, join(warcDir, 'shardline-1-cli-00001.warc.gz'));
    copyFileSync(file, join(warcDir, 'shardline-2-cli-00002.warc.gz.open'));
    writeFileSync(join(warcDir, 'notes.txt'), 'not a WARC file');
    const { code, stdout, stderr } = await runCli(['warc', 'index', warcDir]);
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines.map((line) => line.split(' ')[0])).toEqual(SORTED_KEYS);
    const names = lines.map((line) => JSON.parse(line.slice(line.indexOf('{'))).filename);
    expect(new Set(names)).toEqual(new Set(['shardline-1-cli-00001.warc.gz']));
    expect(stderr).toBe(
      `note: ${warcDir}: 1 WARC file(s) still open left out (shardline-2-cli-00002.warc.gz.open): name them to index them\n`,
    );
  });

  it('a directory with no closed WARC file, and get of a directory, are one line each', async () => {
    const empty = join(dir, 'empty-dir');
    mkdirSync(empty);
    const none = await runCli(['warc', 'index', empty]);
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(
      `error: ${empty}: no closed WARC file (.warc.gz or .warc) in this directory\n`,
    );
    const get = await runCli(['warc', 'get', `${empty}:0`]);
    expect(get.code).toBe(1);
    expect(get.stderr).toBe(
      `error: cannot read ${empty}: it is a directory; name a WARC file in it\n`,
    );
  });
});
