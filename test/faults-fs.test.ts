/**
 * Fault injection over HTTP: ENOSPC / EACCES / EROFS / EMFILE raised by the file
 * system while a write tool writes, injected through the atomic writer's fs seam (the shared
 * `nodeWriterFs` object every write uses when no other is given) into a running app.
 * `STORAGE_FULL` 507, `FS_PERMISSION_DENIED` 403, `FS_BUSY` 503 with Retry-After;
 * nothing changed on disk, no temp file, the lock released, and the next request succeeds.
 */
import { promises as fsp } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { nodeWriterFs } from '../src/write/atomic-writer.js';
import { journalEntries } from '../src/write/journal.js';
import { makeTestApp, type TestApp } from './helpers.js';
import { tempFilesUnder } from './support/workspace-scan.js';

let t: TestApp;
beforeAll(async () => {
  // A leaked lock shows as LOCK_TIMEOUT on the next request, quickly.
  t = await makeTestApp({ config: { lockTimeoutMs: 1_000 } });
});
afterAll(async () => {
  await t.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: simulated by the test`), { code });
}

type Where = 'open' | 'write' | 'sync' | 'rename';

/** Makes the next temp-file step `where` fail with `code`, once; later writes work again. */
function failOnce(where: Where, code: string): void {
  let armed = true;
  const realOpen = nodeWriterFs.open;
  const realRename = nodeWriterFs.rename;
  if (where === 'rename') {
    vi.spyOn(nodeWriterFs, 'rename').mockImplementation(async (from, to) => {
      if (armed && path.basename(from).startsWith('.sidefile-tmp-')) {
        armed = false;
        throw errno(code);
      }
      return realRename(from, to);
    });
    return;
  }
  vi.spyOn(nodeWriterFs, 'open').mockImplementation(async (p, flags, mode) => {
    const isTemp = path.basename(p).startsWith('.sidefile-tmp-');
    if (!armed || !isTemp) return realOpen(p, flags, mode);
    if (where === 'open') {
      armed = false;
      throw errno(code);
    }
    const handle = await realOpen(p, flags, mode);
    const method = where === 'write' ? 'writeFile' : 'sync';
    return new Proxy(handle, {
      get(h, prop) {
        if (prop === method && armed) {
          return async () => {
            armed = false;
            throw errno(code);
          };
        }
        const v = Reflect.get(h, prop) as unknown;
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(h) : v;
      },
    }) as FileHandle;
  });
}

interface ToolCase {
  tool: string;
  file: string;
  original: string;
  route: string;
  body: Record<string, unknown>;
  /** A check of the bytes after the retried request succeeded. */
  after(text: string): boolean;
}

const NB =
  JSON.stringify(
    {
      cells: [{ cell_type: 'code', execution_count: 1, id: 'a', metadata: {}, outputs: [], source: ['x = 1'] }],
      metadata: {},
      nbformat: 4,
      nbformat_minor: 5,
    },
    null,
    1,
  ) + '\n';

function cases(n: string): ToolCase[] {
  return [
    {
      tool: 'Write',
      file: `w-${n}.txt`,
      original: 'old\n',
      route: '/v1/tools/write',
      body: { file_path: `w-${n}.txt`, content: 'new\n' },
      after: (s) => s === 'new\n',
    },
    {
      tool: 'Edit',
      file: `e-${n}.txt`,
      original: 'one\ntwo\n',
      route: '/v1/tools/edit',
      body: { file_path: `e-${n}.txt`, old_string: 'two', new_string: 'TWO' },
      after: (s) => s === 'one\nTWO\n',
    },
    {
      tool: 'NotebookEdit',
      file: `n-${n}.ipynb`,
      original: NB,
      route: '/v1/tools/notebook_edit',
      body: { notebook_path: `n-${n}.ipynb`, cell_id: 'a', new_source: 'y = 2' },
      after: (s) => JSON.parse(s).cells[0].source.join('') === 'y = 2',
    },
  ];
}

const FAULTS: Array<[code: string, error: string, status: number, where: Where]> = [
  ['ENOSPC', 'STORAGE_FULL', 507, 'write'],
  ['ENOSPC', 'STORAGE_FULL', 507, 'sync'],
  ['EACCES', 'FS_PERMISSION_DENIED', 403, 'open'],
  ['EROFS', 'FS_PERMISSION_DENIED', 403, 'rename'],
  ['EMFILE', 'FS_BUSY', 503, 'open'],
];

let counter = 0;

describe('file-system faults during a write, over HTTP', () => {
  for (const [code, error, status, where] of FAULTS) {
    for (const c of cases('x')) {
      it(`${c.tool}: ${code} at the temp file's ${where} answers ${status} ${error}; nothing changed, lock released, the retry succeeds`, async () => {
        const tc = cases(String(counter++)).find((x) => x.tool === c.tool)!;
        const session = `fs-${counter}`;
        // Created through the service: the session has seen the file in full.
        const created = await t.request
          .post('/v1/tools/write')
          .set('x-session-id', session)
          .send({ file_path: tc.file, content: tc.original });
        expect(created.status).toBe(200);
        const historyBefore = (await t.request.get('/v1/history').query({ file_path: tc.file })).body;

        failOnce(where, code);
        const res = await t.request.post(tc.route).set('x-session-id', session).send(tc.body);
        expect(res.status).toBe(status);
        expect(res.body).toEqual({ error: { code: error, message: expect.any(String), details: expect.anything() } });
        expect(res.body.error.message).not.toContain(t.root);
        if (error === 'FS_BUSY') expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
        expect(await fsp.readFile(path.join(t.root, tc.file), 'utf8')).toBe(tc.original);
        expect(await tempFilesUnder(t.root)).toEqual([]);
        expect(await journalEntries(t.dataDir)).toEqual([]);
        expect(t.app.services.locks.stats()).toEqual({ held: 0, waiting: 0 });
        // Nothing kept in the history either: no version of a write that did not happen.
        expect((await t.request.get('/v1/history').query({ file_path: tc.file })).body).toEqual(historyBefore);

        const retry = await t.request.post(tc.route).set('x-session-id', session).send(tc.body);
        expect(retry.status, JSON.stringify(retry.body)).toBe(200);
        expect(tc.after(await fsp.readFile(path.join(t.root, tc.file), 'utf8'))).toBe(true);
      });
    }
  }

  // A failed write discards the version it kept alongside its temp file.
  it('keeps no history version for a write that failed (a version is content a write replaced)', async () => {
    const session = 'fs-history';
    const created = await t.request.post('/v1/tools/write').set('x-session-id', session).send({ file_path: 'h.txt', content: 'old\n' });
    expect(created.status).toBe(200);
    const before = (await t.request.get('/v1/history').query({ file_path: 'h.txt' })).body;
    failOnce('write', 'ENOSPC');
    const res = await t.request.post('/v1/tools/write').set('x-session-id', session).send({ file_path: 'h.txt', content: 'new\n' });
    expect(res.status).toBe(507);
    expect((await t.request.get('/v1/history').query({ file_path: 'h.txt' })).body).toEqual(before);
  });
});
