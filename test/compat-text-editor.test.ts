import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ToolCallEvent } from '../src/tools/types.js';
import { makeTestApp, type TestApp } from './helpers.js';

const ROUTE = '/v1/compat/anthropic/text-editor';

describe('POST /v1/compat/anthropic/text-editor', () => {
  let t: TestApp;
  const calls: ToolCallEvent[] = [];
  beforeEach(async () => {
    calls.length = 0;
    t = await makeTestApp({ build: { configure: (s) => s.toolCallListeners.push((e) => calls.push(e)) } });
  });
  afterEach(() => t.close());

  const send = (body: unknown, session = 'claude-1', query = '') =>
    t.request
      .post(`${ROUTE}${query}`)
      .set('X-Session-Id', session)
      .send(body as object);
  const file = (name: string) => path.join(t.root, name);

  it('views a file as Read numbers it, and the view counts as a Read', async () => {
    await writeFile(file('app.py'), 'def greet():\n    return "hi"\n');
    const view = await send({ command: 'view', path: 'app.py' });
    expect(view.status).toBe(200);
    expect(view.body).toEqual({ content: '     1→def greet():\n     2→    return "hi"', is_error: false });
    const edit = await send({ command: 'str_replace', path: 'app.py', old_str: '"hi"', new_str: '"hello"' });
    expect(edit.body).toEqual({ content: 'The file app.py has been updated successfully.', is_error: false });
    expect(await readFile(file('app.py'), 'utf8')).toBe('def greet():\n    return "hello"\n');
    expect(calls.map((c) => [c.tool, c.transport])).toEqual([
      ['Read', 'compat'],
      ['Edit', 'compat'],
    ]);
  });

  it('views a range, a range to the end, and cuts at max_characters', async () => {
    await writeFile(file('n.txt'), 'a\nb\nc\nd\n');
    const range = await send({ command: 'view', path: 'n.txt', view_range: [2, 3] });
    expect(range.body.content.split('\n').slice(0, 2)).toEqual(['     2→b', '     3→c']);
    const toEnd = await send({ command: 'view', path: 'n.txt', view_range: [3, -1] });
    expect(toEnd.body).toEqual({ content: '     3→c\n     4→d', is_error: false });
    const cut = await send({ command: 'view', path: 'n.txt', view_range: [1, -1] }, 'other', '?max_characters=8');
    expect(cut.body.content).toBe('     1→a\n… [cut at 8 of 35 characters; to see the rest, view with view_range [2, -1]]');
    const bad = await send({ command: 'view', path: 'n.txt', view_range: [3, 2] });
    expect(bad.body.is_error).toBe(true);
  });

  it('answers every failure as 200 is_error with the sidefile message', async () => {
    await writeFile(file('a.txt'), 'x\n');
    const unread = await send({ command: 'str_replace', path: 'a.txt', old_str: 'x', new_str: 'y' });
    expect(unread.status).toBe(200);
    expect(unread.body.is_error).toBe(true);
    expect(unread.body.content).toMatch(/read/i);
    const outside = await send({ command: 'view', path: '../etc/passwd' });
    expect(outside.status).toBe(200);
    expect(outside.body.is_error).toBe(true);
    const unknown = await send({ command: 'rename', path: 'a.txt' });
    expect([unknown.status, unknown.body.is_error]).toEqual([200, true]);
    const notJson = await t.request.post(ROUTE).set('Content-Type', 'application/json').send('{oops');
    expect([notJson.status, notJson.body.is_error]).toEqual([200, true]);
    const missingField = await send({ command: 'create', path: 'b.txt' });
    expect(missingField.body).toEqual({ content: 'Invalid request: file_text is required for this command.', is_error: true });
    expect(await readFile(file('a.txt'), 'utf8')).toBe('x\n');
  });

  it('creates a new file, and overwrites one only after a full view', async () => {
    const created = await send({ command: 'create', path: 'dir/new.md', file_text: '# new\n' });
    expect(created.body).toEqual({ content: 'File created successfully at: dir/new.md', is_error: false });
    await writeFile(file('old.md'), 'old\n');
    const blind = await send({ command: 'create', path: 'old.md', file_text: 'new\n' });
    expect(blind.body.is_error).toBe(true);
    await send({ command: 'view', path: 'old.md' });
    const seen = await send({ command: 'create', path: 'old.md', file_text: 'new\n' });
    expect(seen.body.is_error).toBe(false);
    expect(await readFile(file('old.md'), 'utf8')).toBe('new\n');
  });

  it("inserts after a line with the file's line ending (insert_text or new_str)", async () => {
    await writeFile(file('crlf.txt'), 'one\r\ntwo\r\n');
    await send({ command: 'view', path: 'crlf.txt' });
    const ins = await send({ command: 'insert', path: 'crlf.txt', insert_line: 1, insert_text: 'a\nb\n' });
    expect(ins.body.is_error).toBe(false);
    expect(await readFile(file('crlf.txt'), 'utf8')).toBe('one\r\na\r\nb\r\ntwo\r\n');
    const top = await send({ command: 'insert', path: 'crlf.txt', insert_line: 0, new_str: 'zero' });
    expect(top.body.is_error).toBe(false);
    expect(await readFile(file('crlf.txt'), 'utf8')).toBe('zero\r\none\r\na\r\nb\r\ntwo\r\n');
    await writeFile(file('nofinal.txt'), 'x\ny');
    await send({ command: 'view', path: 'nofinal.txt' });
    await send({ command: 'insert', path: 'nofinal.txt', insert_line: 2, insert_text: 'z' });
    expect(await readFile(file('nofinal.txt'), 'utf8')).toBe('x\ny\nz');
    const past = await send({ command: 'insert', path: 'nofinal.txt', insert_line: 9, insert_text: 'w' });
    expect(past.body).toEqual({ content: expect.stringMatching(/past the end of nofinal.txt, which has 3 lines/), is_error: true });
    const history = await t.request.get('/v1/history').query({ file_path: 'crlf.txt' });
    expect(history.body.versions.map((v: { tool: string }) => v.tool)).toEqual(['Edit', 'Edit']);
  });

  it("undoes this session's edits one by one, newest first, and no further", async () => {
    await writeFile(file('u.txt'), 'v0\n');
    await send({ command: 'view', path: 'u.txt' });
    await send({ command: 'str_replace', path: 'u.txt', old_str: 'v0', new_str: 'v1' });
    await send({ command: 'str_replace', path: 'u.txt', old_str: 'v1', new_str: 'v2' });
    expect(await send({ command: 'undo_edit', path: 'u.txt' }, 'someone-else')).toMatchObject({ body: { is_error: true } });
    expect((await send({ command: 'undo_edit', path: 'u.txt' })).body).toEqual({
      content: 'Last edit to u.txt undone successfully.',
      is_error: false,
    });
    expect(await readFile(file('u.txt'), 'utf8')).toBe('v1\n');
    await send({ command: 'undo_edit', path: 'u.txt' });
    expect(await readFile(file('u.txt'), 'utf8')).toBe('v0\n');
    const none = await send({ command: 'undo_edit', path: 'u.txt' });
    expect(none.body).toEqual({ content: 'No edit of u.txt by this session is left to undo.', is_error: true });
    expect(await readFile(file('u.txt'), 'utf8')).toBe('v0\n');
  });

  it('views a folder two levels deep, without hidden or ignored entries', async () => {
    const { mkdir } = await import('node:fs/promises');
    await mkdir(file('src/lib/deep'), { recursive: true });
    await mkdir(file('.hidden'));
    await mkdir(file('build'));
    await writeFile(file('.gitignore'), 'build/\n');
    await writeFile(file('README.md'), '# hi\n');
    await writeFile(file('src/app.py'), 'x = 1\n');
    await writeFile(file('src/.env'), 'SECRET=1\n');
    await writeFile(file('src/lib/deep/too-deep.txt'), 'no\n');
    await writeFile(file('build/out.js'), '1\n');
    const view = await send({ command: 'view', path: '.' });
    expect(view.body).toEqual({
      content:
        "Here's the files and directories up to 2 levels deep in ., excluding hidden items:\n" +
        'src/\nsrc/lib/\nsrc/app.py (6B)\nREADME.md (5B)\n',
      is_error: false,
    });
    const sub = await send({ command: 'view', path: 'src' });
    expect(sub.body.content).toBe(
      "Here's the files and directories up to 2 levels deep in src, excluding hidden items:\nsrc/lib/\nsrc/lib/deep/\nsrc/app.py (6B)\n",
    );
  });

  it('views a notebook as cells', async () => {
    const nb = {
      nbformat: 4,
      nbformat_minor: 5,
      metadata: {},
      cells: [{ id: 'c1', cell_type: 'code', source: 'x = 1', metadata: {}, execution_count: null, outputs: [] }],
    };
    await writeFile(file('n.ipynb'), JSON.stringify(nb));
    const view = await send({ command: 'view', path: 'n.ipynb' });
    expect(view.body.is_error).toBe(false);
    expect(view.body.content).toContain('x = 1');
    expect(view.body.content).toContain('c1');
  });
});

describe('text editor route: who may call it', () => {
  it('is 403 ORIGIN_DENIED for a foreign browser origin, not 200', async () => {
    const t = await makeTestApp();
    try {
      const res = await t.request.post(ROUTE).set('Origin', 'http://evil.example').send({ command: 'view', path: '.' });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('ORIGIN_DENIED');
    } finally {
      await t.close();
    }
  });

  it('is 401 without the token, not 200', async () => {
    const t = await makeTestApp({ config: { token: 'secret' } });
    try {
      const res = await t.request.post(ROUTE).send({ command: 'view', path: '.' });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('UNAUTHORIZED');
    } finally {
      await t.close();
    }
  });
});
