import {
  appendFileSync,
  closeSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  readRecordAt,
  repairFile,
  WarcError,
  WarcErrorCode,
  type WarcExchange,
  WarcWriter,
  writeCdxj,
} from '../src/index.js';
import { membersOf, sha1Base32, warcioRecords } from './warc-files.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'warc-writer-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function exchange(
  path: string,
  body: string | Buffer,
  extra: Partial<WarcExchange> = {},
): WarcExchange {
  return {
    url: `http://site.test${path}`,
    sentAtMs: Date.parse('2026-01-02T03:04:05.678Z'),
    ipAddress: '127.0.0.2',
    request: {
      headers: [
        ['user-agent', 'shardline/0.1'],
        ['accept', '*/*'],
      ],
    },
    response: {
      status: 200,
      statusText: 'OK',
      headers: [
        ['Content-Type', 'text/html; charset=utf-8'],
        ['Set-Cookie', 'a=1'],
        ['Set-Cookie', 'b=2'],
      ],
      body: Buffer.from(body),
    },
    ...extra,
  };
}

function files(): string[] {
  return readdirSync(dir).sort();
}

describe('WarcWriter', () => {
  it('writes warcinfo, then response + request pairs an independent reader validates', async () => {
    const writer = await WarcWriter.open({ dir, pod: 'pod-1', info: { software: 'test' } });
    const a = await writer.write(exchange('/a', '<html>a</html>'));
    const b = await writer.write(exchange('/b?x=1', Buffer.alloc(70_000, 7)));
    expect(files()).toEqual([`${a.file}.open`]);
    await writer.close();
    expect(files()).toEqual([a.file]);
    expect(a.file).toMatch(/^shardline-\d{17}-pod-1-00000\.warc\.gz$/);
    expect(b.file).toBe(a.file);

    const path = join(dir, a.file);
    const records = membersOf(path);
    expect(records.map((r) => r.type)).toEqual([
      'warcinfo',
      'response',
      'request',
      'response',
      'request',
    ]);
    expect(records[0]!.headers.get('WARC-Filename')).toBe(a.file);
    expect(records[0]!.block.toString()).toContain('software: test');
    for (const record of records) {
      expect(record.headers.get('WARC-Block-Digest') ?? sha1Base32(record.block)).toBe(
        sha1Base32(record.block),
      );
    }
    const [, resA, reqA, resB, reqB] = records;
    expect(resA!.offset).toBe(a.offset);
    expect(resA!.length).toBe(a.length);
    expect(resB!.offset).toBe(b.offset);
    expect(resA!.payload.toString()).toBe('<html>a</html>');
    expect(resB!.payload.equals(Buffer.alloc(70_000, 7))).toBe(true);
    expect(resA!.headers.get('WARC-Payload-Digest')).toBe(sha1Base32(resA!.payload));
    expect(resA!.headers.get('WARC-Date')).toBe('2026-01-02T03:04:05.678Z');
    expect(resA!.headers.get('WARC-IP-Address')).toBe('127.0.0.2');
    expect(resA!.headers.get('WARC-Target-URI')).toBe('http://site.test/a');
    expect(resA!.httpHead).toBe(
      'HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2',
    );
    expect(reqA!.headers.get('WARC-Concurrent-To')).toBe(resA!.headers.get('WARC-Record-ID'));
    expect(reqB!.headers.get('WARC-Concurrent-To')).toBe(resB!.headers.get('WARC-Record-ID'));
    expect(reqB!.httpHead).toBe(
      'GET /b?x=1 HTTP/1.1\r\nHost: site.test\r\nuser-agent: shardline/0.1\r\naccept: */*',
    );
    expect(resA!.headers.has('WARC-Truncated')).toBe(false);

    // warcio reads the same records, payloads included.
    const parsed = await warcioRecords(path);
    expect(parsed.map((r) => r.type)).toEqual(records.map((r) => r.type));
    expect(parsed[3]!.payload.equals(Buffer.alloc(70_000, 7))).toBe(true);

    // One seek reads one record.
    const one = await readRecordAt(path, b.offset);
    expect(one.type).toBe('response');
    expect(one.warcHead).toContain('WARC-Target-URI: http://site.test/b?x=1');
    expect(one.block.subarray(-70_000).equals(Buffer.alloc(70_000, 7))).toBe(true);
    expect(one.bytes.subarray(-4).toString()).toBe('\r\n\r\n');
    await expect(readRecordAt(path, b.offset + 3)).rejects.toMatchObject({
      code: WarcErrorCode.NO_RECORD,
    });

    // CDXJ as pywb reads it: SURT key, 14-digit timestamp, JSON with offset/length/filename.
    const lines: string[] = [];
    expect(await writeCdxj([path], (line) => lines.push(line))).toBe(2);
    expect(lines[0]).toMatch(/^test,site\)\/a 20260102030405 \{.*\}\n$/);
    const json = JSON.parse(lines[0]!.slice(lines[0]!.indexOf('{')));
    expect(json).toMatchObject({
      url: 'http://site.test/a',
      status: '200',
      offset: String(a.offset),
      length: String(a.length),
      filename: a.file,
      digest: sha1Base32(resA!.payload).slice(5),
    });
  });

  it('marks a body cut at the cap WARC-Truncated: length', async () => {
    const writer = await WarcWriter.open({ dir, pod: 'p' });
    const cut = exchange('/big', 'x'.repeat(100));
    cut.response.truncated = true;
    await writer.write(cut);
    await writer.close();
    const [, response] = membersOf(join(dir, files()[0]!));
    expect(response!.headers.get('WARC-Truncated')).toBe('length');
  });

  it('archives a 304 as a revisit (server-not-modified) that warcio reads and CDXJ lists as warc/revisit', async () => {
    const writer = await WarcWriter.open({ dir, pod: 'p' });
    const captured = Date.parse('2026-01-01T00:00:00.123Z');
    const first = await writer.write(exchange('/r', '<html>r</html>'));
    const notModified = exchange('/r', '', {
      sentAtMs: Date.parse('2026-01-03T00:00:00.000Z'),
      revisitOf: { url: 'http://site.test/r', dateMs: captured },
    });
    notModified.response = {
      status: 304,
      statusText: 'Not Modified',
      headers: [['ETag', '"v1"']],
      body: Buffer.alloc(0),
    };
    const revisit = await writer.write(notModified);
    // Without the earlier capture's date: the target URI alone.
    const bare = exchange('/r', '', { revisitOf: { url: 'http://site.test/r' } });
    bare.response = { status: 304, statusText: 'Not Modified', headers: [], body: Buffer.alloc(0) };
    await writer.write(bare);
    await writer.close();
    const path = join(dir, revisit.file);

    const records = membersOf(path);
    expect(records.map((r) => r.type)).toEqual([
      'warcinfo',
      'response',
      'request',
      'revisit',
      'request',
      'revisit',
      'request',
    ]);
    const record = records[3]!;
    expect(record.offset).toBe(revisit.offset);
    expect(record.headers.get('WARC-Profile')).toBe(
      'http://netpreserve.org/warc/1.1/revisit/server-not-modified',
    );
    expect(record.headers.get('WARC-Refers-To-Target-URI')).toBe('http://site.test/r');
    expect(record.headers.get('WARC-Refers-To-Date')).toBe('2026-01-01T00:00:00.123Z');
    expect(record.headers.get('Content-Type')).toBe('application/http; msgtype=response');
    // The payload is the earlier capture's, not known here: no payload digest.
    expect(record.headers.has('WARC-Payload-Digest')).toBe(false);
    expect(record.headers.get('WARC-Block-Digest')).toBe(sha1Base32(record.block));
    expect(record.httpHead).toBe('HTTP/1.1 304 Not Modified\r\nETag: "v1"');
    expect(record.payload.length).toBe(0);
    expect(records[4]!.headers.get('WARC-Concurrent-To')).toBe(
      record.headers.get('WARC-Record-ID'),
    );
    expect(records[5]!.headers.get('WARC-Refers-To-Target-URI')).toBe('http://site.test/r');
    expect(records[5]!.headers.has('WARC-Refers-To-Date')).toBe(false);

    const parsed = await warcioRecords(path);
    expect(parsed[3]).toMatchObject({ type: 'revisit', status: 304, url: 'http://site.test/r' });
    expect(parsed[3]!.warcHeaders['warc-refers-to-date']).toBe('2026-01-01T00:00:00.123Z');

    const lines: string[] = [];
    await writeCdxj([path], (line) => lines.push(line));
    const json = lines.map((line) => JSON.parse(line.slice(line.indexOf('{'))));
    expect(json.map((j) => j.mime)).toEqual(['text/html', 'warc/revisit', 'warc/revisit']);
    expect(json[1]).toMatchObject({ status: '304', offset: String(revisit.offset) });
    expect(json[0]).toMatchObject({ offset: String(first.offset) });
  });

  it('rotates files at maxFileBytes and names them by serial', async () => {
    const writer = await WarcWriter.open({ dir, pod: 'p', maxFileBytes: 3000 });
    const locations = [];
    // Incompressible bodies, ~1.2 KB per pair: two pairs per file at most.
    for (let i = 0; i < 6; i++) {
      locations.push(await writer.write(exchange(`/${i}`, randomText(1000, i))));
    }
    await writer.close();
    const names = files();
    expect(names.length).toBeGreaterThanOrEqual(3);
    expect(names.every((name) => name.endsWith('.warc.gz'))).toBe(true);
    expect(names.map((name) => name.slice(-14))).toEqual(
      names.map((_, i) => `-${String(i).padStart(5, '0')}.warc.gz`),
    );
    for (const name of names) {
      expect(statSync(join(dir, name)).size).toBeLessThanOrEqual(3000);
      const records = membersOf(join(dir, name));
      expect(records[0]!.type).toBe('warcinfo');
    }
    expect(writer.stats()).toMatchObject({ records: 12 + names.length, filesClosed: names.length });
    expect(new Set(locations.map((l) => l.file)).size).toBe(names.length);
    await expect(writer.write(exchange('/late', 'x'))).rejects.toBeInstanceOf(WarcError);
  });

  it('repairs its own .open file at open: a partial last record is cut, the file closed', async () => {
    const first = await WarcWriter.open({ dir, pod: 'p' });
    await first.write(exchange('/1', 'one'));
    const kept = await first.write(exchange('/2', 'two'));
    // Simulate a crash: the process dies mid-write of the next pair (no close, no rename).
    const open = join(dir, `${kept.file}.open`);
    const whole = readFileSync(open);
    const goodSize = whole.length;
    appendFileSync(open, whole.subarray(kept.offset, kept.offset + Math.floor(kept.length / 2)));
    // Another pod's unfinished file is not touched.
    const other = join(dir, 'shardline-20260101000000000-q-00000.warc.gz.open');
    writeFileSync(other, 'partial');

    const second = await WarcWriter.open({ dir, pod: 'p' });
    expect(second.stats().repaired).toEqual([
      { path: open, bytesBefore: goodSize + Math.floor(kept.length / 2), bytesAfter: goodSize },
    ]);
    await second.write(exchange('/3', 'three'));
    await second.close();
    const names = files();
    expect(names).toContain(kept.file);
    expect(names).toContain('shardline-20260101000000000-q-00000.warc.gz.open');
    const repaired = membersOf(join(dir, kept.file));
    expect(repaired.map((r) => r.type)).toEqual([
      'warcinfo',
      'response',
      'request',
      'response',
      'request',
    ]);
    expect(repaired[3]!.payload.toString()).toBe('two');
  });

  it('repair keeps a complete member followed by a few bytes of the next header', async () => {
    const writer = await WarcWriter.open({ dir, pod: 'p' });
    const at = await writer.write(exchange('/1', 'one'));
    const path = join(dir, `${at.file}.open`);
    const size = statSync(path).size;
    appendFileSync(path, Buffer.from([0x1f, 0x8b, 0x08]));
    expect(await repairFile(path)).toMatchObject({ bytesBefore: size + 3, bytesAfter: size });
    expect(membersOf(path)).toHaveLength(3);
  });

  it('repairs files written at any gzipLevel (the gzip header differs by level)', async () => {
    for (const gzipLevel of [1, 6, 9]) {
      const writer = await WarcWriter.open({ dir, pod: `l${gzipLevel}`, gzipLevel });
      const at = await writer.write(exchange('/1', 'one '.repeat(200)));
      const path = join(dir, `${at.file}.open`);
      const size = statSync(path).size;
      appendFileSync(path, readFileSync(path).subarray(at.offset, at.offset + 20));
      expect(await repairFile(path)).toMatchObject({ bytesBefore: size + 20, bytesAfter: size });
      expect(membersOf(path).map((r) => r.type)).toEqual(['warcinfo', 'response', 'request']);
    }
    await expect(WarcWriter.open({ dir, pod: 'p', gzipLevel: 0 })).rejects.toThrow(
      /WarcWriterOptions\.gzipLevel must be an integer from 1 to 9/,
    );
  });

  it('rejects a write the OS refuses with SHARDLINE_ERR_WARC_IO, counted', async () => {
    const writer = await WarcWriter.open({ dir, pod: 'p' });
    const first = await writer.write(exchange('/1', 'one'));
    // Take the file away under the writer: its descriptor closed, as a failing disk would.
    const open = join(dir, `${first.file}.open`);
    const fd = readdirSync('/proc/self/fd').find((n) => {
      try {
        return readlinkSync(`/proc/self/fd/${n}`) === open;
      } catch {
        return false;
      }
    });
    expect(fd).toBeDefined();
    // Its number now names /dev/null, read-only (open takes the lowest free number), so the
    // writer's later calls on it fail or touch nothing of anyone else's.
    closeSync(Number(fd));
    const extra: number[] = [];
    let got = openSync('/dev/null', 'r');
    while (got !== Number(fd) && extra.length < 1000) {
      extra.push(got);
      got = openSync('/dev/null', 'r');
    }
    for (const other of extra) closeSync(other);
    expect(got).toBe(Number(fd));
    await expect(writer.write(exchange('/2', 'two'))).rejects.toMatchObject({
      code: WarcErrorCode.IO,
      message: expect.stringMatching(/^WARC write failed: /),
    });
    expect(writer.stats()).toMatchObject({ errors: 1, records: 3 });
    await writer.close().catch(() => undefined);
  });

  it('says what lies at an offset that holds no record: past the end, not WARC, a cut record', async () => {
    const writer = await WarcWriter.open({ dir, pod: 'p' });
    const at = await writer.write(exchange('/a', 'hello'));
    await writer.close();
    const gz = join(dir, at.file);
    const end = statSync(gz).size;
    await expect(readRecordAt(gz, end)).rejects.toThrow(
      `${gz}:${end}: nothing there: the file has ${end} bytes`,
    );

    const plain = join(dir, 'plain.warc');
    const record = (await readRecordAt(gz, at.offset)).bytes;
    writeFileSync(plain, Buffer.concat([Buffer.from('not a warc\r\n\r\n'), record]));
    await expect(readRecordAt(plain, 0)).rejects.toThrow(/plain\.warc:0: no WARC head there/);
    expect((await readRecordAt(plain, 14)).type).toBe('response');
    await expect(readRecordAt(plain, 10_000)).rejects.toThrow(/nothing there/);

    writeFileSync(plain, record.subarray(0, record.length - 10));
    await expect(readRecordAt(plain, 0)).rejects.toMatchObject({
      code: WarcErrorCode.NO_RECORD,
      message: expect.stringMatching(/plain\.warc:0: the file ends inside the record$/),
    });
  });

  it('refuses bad options with the option named', async () => {
    await expect(WarcWriter.open({ dir, pod: 'bad/pod' })).rejects.toThrow(
      /WarcWriterOptions\.pod must be/,
    );
    await expect(WarcWriter.open({ dir, pod: 'p', maxFileBytes: 0 })).rejects.toMatchObject({
      code: WarcErrorCode.INVALID_OPTION,
    });
  });
});

function randomText(length: number, seed: number): string {
  let x = seed + 1;
  let out = '';
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out += String.fromCharCode(33 + (x % 90));
  }
  return out;
}
