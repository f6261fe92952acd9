import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, readFully, type TestApp } from './helpers.js';

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await t.close();
});

const file = (rel: string) => path.join(t.root, rel);
const put = (rel: string, content: string | Buffer) =>
  fsp.mkdir(path.dirname(file(rel)), { recursive: true }).then(() => fsp.writeFile(file(rel), content));
const text = (rel: string) => fsp.readFile(file(rel), 'utf8');
const exists = (rel: string) =>
  fsp.access(file(rel)).then(
    () => true,
    () => false,
  );
const wrap = (body: string) => `*** Begin Patch\n${body}*** End Patch\n`;
const apply = (body: unknown, session = 'default') =>
  t.request
    .post('/v1/tools/apply_patch')
    .set('X-Session-Id', session)
    .send(body as object);

/** A snapshot of every file under the root (relative path → bytes). */
async function snapshot(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (dir: string): Promise<void> => {
    for (const e of await fsp.readdir(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) await walk(p);
      else out[path.relative(t.root, p)] = (await fsp.readFile(p)).toString('base64');
    }
  };
  await walk(t.root);
  return out;
}

describe('POST /v1/tools/apply_patch: body forms', () => {
  beforeEach(async () => {
    await put('a.txt', 'one\ntwo\nthree\n');
    await readFully(t, 'a.txt');
  });
  const body = '*** Update File: a.txt\n@@\n one\n-two\n+2\n';

  it('takes { patch }', async () => {
    const res = await apply({ patch: wrap(body) });
    expect(res.status).toBe(200);
    expect(res.body.text).toBe('Applied patch to 1 file:\nM a.txt (+1 -1)');
    expect(await text('a.txt')).toBe('one\n2\nthree\n');
  });

  it('takes { operations } as the Responses API sends them', async () => {
    const res = await apply({
      operations: [
        { type: 'update_file', path: 'a.txt', diff: '@@\n one\n-two\n+2\n' },
        { type: 'create_file', path: 'n/new.txt', diff: '+hello\n+world\n' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.text).toBe('Applied patch to 2 files:\nM a.txt (+1 -1)\nA n/new.txt (+2)');
    expect(await text('n/new.txt')).toBe('hello\nworld\n');
  });

  it('takes the raw patch as text/x-diff and text/x-patch', async () => {
    for (const [type, from, to] of [
      ['text/x-diff', 'two', '2'],
      ['text/x-patch', '2', 'zwei'],
    ]) {
      const res = await t.request
        .post('/v1/tools/apply_patch')
        .set('Content-Type', type!)
        .send(wrap(`*** Update File: a.txt\n@@\n-${from}\n+${to}\n`));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    expect(await text('a.txt')).toBe('one\nzwei\nthree\n');
  });

  it('refuses text/plain, both forms, and neither with 400 INVALID_INPUT; nothing changes', async () => {
    const plain = await t.request.post('/v1/tools/apply_patch').set('Content-Type', 'text/plain').send(wrap(body));
    const both = await apply({ patch: wrap(body), operations: [{ type: 'delete_file', path: 'a.txt' }] });
    const neither = await apply({});
    const nulls = await apply({ patch: null, operations: null });
    for (const res of [plain, both, neither, nulls]) {
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('INVALID_INPUT');
    }
    expect(both.body.error.details.fields[0].field).toBe('body.operations');
    expect(await text('a.txt')).toBe('one\ntwo\nthree\n');
  });

  it('keeps text/x-diff to this route: Edit still refuses it', async () => {
    const res = await t.request.post('/v1/tools/edit').set('Content-Type', 'text/x-diff').send('x');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_INPUT');
  });
});

describe('POST /v1/tools/apply_patch: result and text', () => {
  it('applies M, A, D and R in one patch and answers every file', async () => {
    await put('src/a.py', 'def f():\n    return 1\n');
    await put('old.txt', 'bye\n');
    await put('a.txt', 'x\ny\n');
    for (const rel of ['src/a.py', 'old.txt', 'a.txt']) await readFully(t, rel);
    const res = await apply({
      patch: wrap(
        '*** Update File: src/a.py\n@@ def f():\n-    return 1\n+    x = 1\n+    y = 2\n+    return x + y\n' +
          '*** Add File: src/b.py\n+print(1)\n+print(2)\n' +
          '*** Delete File: old.txt\n' +
          '*** Update File: a.txt\n*** Move to: b.txt\n@@\n x\n-y\n+z\n',
      ),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.text).toBe('Applied patch to 4 files:\nM src/a.py (+3 -1)\nA src/b.py (+2)\nD old.txt\nR a.txt -> b.txt (+1 -1)');
    expect(res.body.result.files).toEqual([
      {
        file_path: 'src/a.py',
        type: 'update',
        additions: 3,
        deletions: 1,
        match: 'exact',
        structured_patch: [
          {
            oldStart: 1,
            oldLines: 2,
            newStart: 1,
            newLines: 4,
            lines: [' def f():', '-    return 1', '+    x = 1', '+    y = 2', '+    return x + y'],
          },
        ],
      },
      {
        file_path: 'src/b.py',
        type: 'create',
        additions: 2,
        deletions: 0,
        structured_patch: [{ oldStart: 1, oldLines: 0, newStart: 1, newLines: 2, lines: ['+print(1)', '+print(2)'] }],
      },
      {
        file_path: 'old.txt',
        type: 'delete',
        additions: 0,
        deletions: 1,
        structured_patch: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 0, lines: ['-bye'] }],
      },
      {
        file_path: 'a.txt',
        type: 'move',
        move_to: 'b.txt',
        additions: 1,
        deletions: 1,
        match: 'exact',
        structured_patch: [{ oldStart: 1, oldLines: 2, newStart: 1, newLines: 2, lines: [' x', '-y', '+z'] }],
      },
    ]);
    expect(await text('src/a.py')).toBe('def f():\n    x = 1\n    y = 2\n    return x + y\n');
    expect(await text('src/b.py')).toBe('print(1)\nprint(2)\n');
    expect(await exists('old.txt')).toBe(false);
    expect(await exists('a.txt')).toBe(false);
    expect(await text('b.txt')).toBe('x\nz\n');
  });

  it('keeps one history version and sends one event per file, tool ApplyPatch', async () => {
    await put('a.txt', 'a\n');
    await readFully(t, 'a.txt');
    const events: Array<{ tool: string; path: string; type: string }> = [];
    t.app.services.writeListeners.push((e) => events.push({ tool: e.tool, path: e.path.relative, type: e.type }));
    const res = await apply({ patch: wrap('*** Update File: a.txt\n@@\n-a\n+b\n*** Add File: c.txt\n+c\n') });
    expect(res.status).toBe(200);
    expect(events).toEqual([
      { tool: 'ApplyPatch', path: 'a.txt', type: 'update' },
      { tool: 'ApplyPatch', path: 'c.txt', type: 'create' },
    ]);
    const history = await t.request.get('/v1/history?file_path=a.txt');
    expect(history.status).toBe(200);
    expect(history.body.versions).toHaveLength(1);
    expect(history.body.versions[0]).toMatchObject({ tool: 'ApplyPatch', size: 2 });
  });

  it('leaves the session current: a second patch needs no new Read', async () => {
    await put('a.txt', 'a\n');
    await readFully(t, 'a.txt');
    expect((await apply({ patch: wrap('*** Update File: a.txt\n@@\n-a\n+b\n') })).status).toBe(200);
    expect((await apply({ patch: wrap('*** Update File: a.txt\n@@\n-b\n+c\n') })).status).toBe(200);
    expect(await text('a.txt')).toBe('c\n');
  });
});

describe('POST /v1/tools/apply_patch: per-file rules', () => {
  const expectError = async (res: { status: number; body: any }, status: number, code: string) => {
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body.error.code).toBe(code);
  };

  it('answers 400 PATCH_INVALID with the 1-based line; nothing changes', async () => {
    await put('a.txt', 'a\n');
    const before = await snapshot();
    const res = await apply({ patch: '*** Begin Patch\n*** Add File: b.txt\n+b\n*** Update File: a.txt\n*** End Patch\n' });
    await expectError(res, 400, 'PATCH_INVALID');
    expect(res.body.error.details.line).toBe(4);
    expect(await snapshot()).toEqual(before);
  });

  it('answers 409 FILE_EXISTS for an Add of an existing file and a Move onto one', async () => {
    await put('a.txt', 'a\n');
    await put('b.txt', 'b\n');
    await readFully(t, 'a.txt');
    const before = await snapshot();
    await expectError(await apply({ patch: wrap('*** Add File: b.txt\n+x\n') }), 409, 'FILE_EXISTS');
    await expectError(await apply({ patch: wrap('*** Update File: a.txt\n*** Move to: b.txt\n@@\n-a\n+x\n') }), 409, 'FILE_EXISTS');
    expect(await snapshot()).toEqual(before);
  });

  it('answers 404 FILE_NOT_FOUND for an Update or Delete of a missing file', async () => {
    await expectError(await apply({ patch: wrap('*** Update File: nope.txt\n@@\n-a\n+b\n') }), 404, 'FILE_NOT_FOUND');
    await expectError(await apply({ patch: wrap('*** Delete File: nope.txt\n') }), 404, 'FILE_NOT_FOUND');
  });

  it('answers 409 FILE_NOT_READ for an Update or Delete of a file the session has not read', async () => {
    await put('a.txt', 'a\n');
    await readFully(t, 'a.txt', 'other');
    await expectError(await apply({ patch: wrap('*** Update File: a.txt\n@@\n-a\n+b\n') }), 409, 'FILE_NOT_READ');
    await expectError(await apply({ patch: wrap('*** Delete File: a.txt\n') }), 409, 'FILE_NOT_READ');
    expect(await text('a.txt')).toBe('a\n');
  });

  it('accepts a read of any range', async () => {
    await put('a.txt', 'a\nb\nc\n');
    expect((await t.request.post('/v1/tools/read').send({ file_path: 'a.txt', offset: 3, limit: 1 })).status).toBe(200);
    expect((await apply({ patch: wrap('*** Update File: a.txt\n@@\n-a\n+A\n') })).status).toBe(200);
  });

  it('answers 409 FILE_MODIFIED_SINCE_READ when the file changed after the read', async () => {
    await put('a.txt', 'a\n');
    await readFully(t, 'a.txt');
    await put('a.txt', 'changed\n');
    await expectError(await apply({ patch: wrap('*** Delete File: a.txt\n') }), 409, 'FILE_MODIFIED_SINCE_READ');
    expect(await text('a.txt')).toBe('changed\n');
  });

  it('answers 400 WRONG_TOOL for an Update of a notebook; an Added notebook must be notebook JSON', async () => {
    const nb = JSON.stringify({ cells: [], metadata: {}, nbformat: 4, nbformat_minor: 5 });
    await put('n.ipynb', nb);
    await readFully(t, 'n.ipynb');
    await expectError(await apply({ patch: wrap('*** Update File: n.ipynb\n@@\n-x\n+y\n') }), 400, 'WRONG_TOOL');
    await expectError(await apply({ patch: wrap('*** Add File: m.ipynb\n+{"cells": 1}\n') }), 422, 'INVALID_NOTEBOOK');
    expect(await exists('m.ipynb')).toBe(false);
    const ok = await apply({ patch: wrap(`*** Add File: m.ipynb\n+${nb}\n`) });
    expect(ok.status).toBe(200);
    expect(await text('m.ipynb')).toBe(`${nb}\n`);
  });

  it('answers 403 for a path outside the root, a denied path, and in read-only mode', async () => {
    await expectError(await apply({ patch: wrap('*** Add File: ../evil.txt\n+x\n') }), 403, 'PATH_OUTSIDE_WORKSPACE');
    await expectError(await apply({ patch: wrap('*** Add File: ok.txt\n+x\n*** Add File: .git/config\n+x\n') }), 403, 'PATH_DENIED');
    expect(await exists('ok.txt')).toBe(false);
    await t.close();
    t = await makeTestApp({ config: { readOnly: true } });
    await expectError(await apply({ patch: wrap('*** Add File: ok.txt\n+x\n') }), 403, 'READ_ONLY');
  });

  it('answers 400 PATCH_INVALID for two spellings of one file', async () => {
    await put('a.txt', 'a\n');
    await readFully(t, 'a.txt');
    const res = await apply({ patch: wrap('*** Update File: a.txt\n@@\n-a\n+b\n*** Delete File: sub/../a.txt\n') });
    await expectError(res, 400, 'PATCH_INVALID');
    expect(res.body.error.details.line).toBe(6);
  });

  it('answers 400 NO_CHANGE for a patch that changes nothing', async () => {
    await put('a.txt', 'a\n');
    await readFully(t, 'a.txt');
    await expectError(await apply({ patch: wrap('*** Update File: a.txt\n@@\n-a\n+a\n') }), 400, 'NO_CHANGE');
  });

  it('answers 422 SECRET_DETECTED for a key added to AGENTS.md; nothing of the patch is written', async () => {
    await put('AGENTS.md', '# rules\n');
    await readFully(t, 'AGENTS.md');
    const key = `ghp_${'a1B2'.repeat(9)}`;
    const res = await apply({ patch: wrap(`*** Add File: x.txt\n+x\n*** Update File: AGENTS.md\n@@\n # rules\n+token: ${key}\n`) });
    await expectError(res, 422, 'SECRET_DETECTED');
    expect(JSON.stringify(res.body)).not.toContain(key);
    expect(await exists('x.txt')).toBe(false);
  });
});
