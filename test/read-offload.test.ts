/**
 * Read's page worker (src/tools/read/page-offload.ts): a REST Read answered beside the event
 * loop is byte for byte the event loop's answer, for every kind of file, and records the read
 * the same way. Anything the worker does not answer (binary, image, empty, notebook, legacy
 * encodings it declines) falls back to the event loop with the same answer.
 */
import { existsSync } from 'node:fs';
import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pagesAnsweredOffLoop, setOffloadMode } from '../src/tools/read/page-offload.js';
import { CORPUS, makeTestApp, type TestApp } from './helpers.js';

const run = promisify(execFile);
let t: TestApp;
let session = 0;
beforeAll(async () => {
  t = await makeTestApp({ config: { encodings: [['legacy/*.txt', 'gbk']] } });
});
afterAll(async () => {
  setOffloadMode('auto');
  await t.close();
});
afterEach(() => setOffloadMode('auto'));

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201e2f3d94a0000000049454e44ae426082',
  'hex',
);

/** Files whose answers go through every branch of the byte and string paths. */
const FILES: Record<string, string | Buffer> = {
  'plain.txt': 'alpha\nbeta\ngamma\n',
  'crlf.txt': 'one\r\ntwo\r\nthree\r\n',
  'cr.txt': 'one\rtwo\rthree',
  'mixed.txt': 'a\r\nb\nc\rd',
  'bom.txt': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('bom first\nsecond\n')]),
  'unicode.md': 'café — “quoted” 𠮷 😀\n\ttab\u0001control\u007fdel\n"quotes" and \\backslash\\\n',
  'no-newline.txt': 'last line without newline',
  'only-newline.txt': '\n',
  'long-line.txt': `${'x'.repeat(2500)}\nshort\n`,
  'latin1.txt': Buffer.from('caf\xe9 cr\xe8me\n', 'latin1'),
  'legacy/gbk.txt': Buffer.from([0xca, 0xfd, 0xbe, 0xdd, 0x0a, 0x61, 0x0a]),
  // ASCII, which only the SIDEFILE_ENCODINGS override makes GBK.
  'legacy/ascii.txt': 'plain ascii\nsecond\n',
  // Over 100,000 characters of text: a partial view.
  'wide.txt': Array.from({ length: 100 }, (_, i) => `${i} ${'w'.repeat(1500)}`).join('\n'),
  'many.txt': Array.from({ length: 3000 }, (_, i) => `line ${i + 1} ${'y'.repeat(i % 40)}`).join('\n'),
  'empty.txt': '',
  'binary.bin': Buffer.from([0, 1, 2, 3, 0, 0, 0, 4]),
  'image.png': PNG,
  'nb.ipynb': JSON.stringify({
    cells: [{ cell_type: 'code', source: ['x = 1'], metadata: {}, outputs: [], execution_count: null }],
    metadata: {},
    nbformat: 4,
    nbformat_minor: 5,
  }),
};

const RANGES = [{}, { offset: 2, limit: 3 }, { offset: 2999 }, { offset: 1_000_000 }, { limit: 1 }, { limit: 5000 }];

async function read(mode: 'always' | 'never', body: Record<string, unknown>): Promise<{ status: number; text: string }> {
  setOffloadMode(mode);
  const res = await t.request.post('/v1/tools/read').set('X-Session-Id', `s${session++}`).send(body);
  return { status: res.status, text: res.text };
}

async function expectSameAnswers(paths: string[]): Promise<number> {
  const before = pagesAnsweredOffLoop();
  for (const rel of paths) {
    for (const range of RANGES) {
      const body = { file_path: rel, ...range };
      const onLoop = await read('never', body);
      const onWorker = await read('always', body);
      expect({ rel, range, ...onWorker }).toEqual({ rel, range, ...onLoop });
    }
  }
  return pagesAnsweredOffLoop() - before;
}

describe('Read on the page worker', () => {
  beforeAll(async () => {
    await fs.mkdir(path.join(t.root, 'legacy'), { recursive: true });
    for (const [rel, content] of Object.entries(FILES)) await fs.writeFile(path.join(t.root, rel), content);
  });

  it('answers byte for byte as the event loop does, for every kind of file and range', async () => {
    const answered = await expectSameAnswers(Object.keys(FILES));
    // Every text file's ranges with lines, at least: the worker was used, not only the fallback.
    expect(answered).toBeGreaterThanOrEqual(20);
  });

  it('answers the corpus text and code files as the event loop does', async (ctx) => {
    if (!existsSync(CORPUS)) {
      console.warn(`corpus not found at ${CORPUS}: skipped`);
      return ctx.skip();
    }
    const rels: string[] = [];
    for (const dir of ['text', 'code']) {
      await fs.cp(path.join(CORPUS, dir), path.join(t.root, 'corpus', dir), { recursive: true });
      for (const name of await fs.readdir(path.join(CORPUS, dir))) rels.push(`corpus/${dir}/${name}`);
    }
    expect(await expectSameAnswers(rels)).toBeGreaterThan(rels.length);
  });

  it('records the read: the same range again is file_unchanged, and an Edit lands', async () => {
    await fs.writeFile(path.join(t.root, 'edit-me.txt'), 'keep\nchange me\nkeep\n');
    setOffloadMode('always');
    const before = pagesAnsweredOffLoop();
    const first = await t.request.post('/v1/tools/read').set('X-Session-Id', 'rec').send({ file_path: 'edit-me.txt' });
    expect(first.status).toBe(200);
    expect(pagesAnsweredOffLoop() - before).toBe(1);
    const again = await t.request.post('/v1/tools/read').set('X-Session-Id', 'rec').send({ file_path: 'edit-me.txt' });
    expect(again.body.result).toEqual({ type: 'file_unchanged' });
    const edit = await t.request
      .post('/v1/tools/edit')
      .set('X-Session-Id', 'rec')
      .send({ file_path: 'edit-me.txt', old_string: 'change me', new_string: 'changed' });
    expect(edit.status).toBe(200);
    expect(await fs.readFile(path.join(t.root, 'edit-me.txt'), 'utf8')).toBe('keep\nchanged\nkeep\n');
  });

  it('refuses a write after a read of an older version, as on the event loop', async () => {
    await fs.writeFile(path.join(t.root, 'stale.txt'), 'v1\n');
    setOffloadMode('always');
    expect((await t.request.post('/v1/tools/read').set('X-Session-Id', 'stale').send({ file_path: 'stale.txt' })).status).toBe(200);
    await fs.writeFile(path.join(t.root, 'stale.txt'), 'v2 changed outside\n');
    const edit = await t.request
      .post('/v1/tools/edit')
      .set('X-Session-Id', 'stale')
      .send({ file_path: 'stale.txt', old_string: 'v2', new_string: 'v3' });
    expect(edit.status).toBe(409);
    expect(edit.body.error.code).toBe('FILE_MODIFIED_SINCE_READ');
    expect(await fs.readFile(path.join(t.root, 'stale.txt'), 'utf8')).toBe('v2 changed outside\n');
  });

  it("reads a lone client's calls inline, and calls that queue on the worker (auto)", async () => {
    await fs.writeFile(path.join(t.root, 'auto.txt'), 'a\nb\n');
    const before = pagesAnsweredOffLoop();
    for (let i = 0; i < 5; i++) {
      expect((await t.request.post('/v1/tools/read').set('X-Session-Id', `lone${i}`).send({ file_path: 'auto.txt' })).status).toBe(200);
    }
    expect(pagesAnsweredOffLoop()).toBe(before);
    if (!t.app.server.listening) await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (t.app.server.address() as AddressInfo).port;
    // Another process writes 16 requests at once, 5 times: the loop finds several ready in one turn.
    const { stdout } = await run(process.execPath, ['-e', BURST, String(port)]);
    expect(stdout.trim().split(' ')).toEqual(Array(80).fill('200'));
    expect(pagesAnsweredOffLoop()).toBeGreaterThan(before);
  });
});

/** 16 connections; 5 times, a Read written on each at once, then every answer's status. */
const BURST = `
const net = require('node:net');
const port = Number(process.argv[1]);
const body = JSON.stringify({ file_path: 'auto.txt' });
const statuses = [];
function burst(round) {
  return Promise.all(Array.from({ length: 16 }, (_, i) => new Promise((resolve, reject) => {
    const socket = net.createConnection({ port, host: '127.0.0.1' });
    socket.on('error', reject);
    let text = '';
    socket.on('data', (chunk) => (text += chunk));
    socket.on('close', () => resolve(text.split(' ')[1]));
    socket.on('connect', () => ready.push(() => socket.write(
      'POST /v1/tools/read HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nContent-Type: application/json\\r\\nX-Session-Id: b' + round + '-' + i +
      '\\r\\nContent-Length: ' + body.length + '\\r\\nConnection: close\\r\\n\\r\\n' + body)));
  })));
}
let ready = [];
(async () => {
  for (let round = 0; round < 5; round++) {
    ready = [];
    const answers = burst(round);
    while (ready.length < 16) await new Promise((r) => setTimeout(r, 5));
    for (const write of ready) write();
    statuses.push(...(await answers));
  }
  process.stdout.write(statuses.join(' '));
})();
`;
