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

const put = (rel: string, text: string | Buffer) => fsp.writeFile(path.join(t.root, rel), text);
const bytes = (rel: string) => fsp.readFile(path.join(t.root, rel));
const multi = (body: Record<string, unknown>, session = 'default') =>
  t.request.post('/v1/tools/multi_edit').set('X-Session-Id', session).send(body);

describe('POST /v1/tools/multi_edit', () => {
  it('applies the edits in order, each on the text the one before left, with one rung per edit', async () => {
    await put('a.go', 'func f() {\n\tx := 1\n\treturn x\n}\n');
    await readFully(t, 'a.go');
    const res = await multi({
      file_path: 'a.go',
      edits: [
        { old_string: 'x := 1', new_string: 'y := 2' },
        { old_string: '    y := 2\n    return x', new_string: '    y := 2\n    return y' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.text).toBe('The file a.go has been updated successfully.');
    expect(res.body.result).toMatchObject({ file_path: 'a.go', edits_applied: 2, replacements: 2, matches: ['exact', 'indentation'] });
    expect(res.body.result.structured_patch).toHaveLength(1);
    expect((await bytes('a.go')).toString()).toBe('func f() {\n\ty := 2\n\treturn y\n}\n');
  });

  it('gives the same answers when a replace_all sends the edits to the worker thread (a 100 KB file)', async () => {
    const text = `${'alpha beta\n'.repeat(10_000)}end\n`;
    await put('big.txt', text);
    await readFully(t, 'big.txt');
    const failed = await multi({
      file_path: 'big.txt',
      edits: [
        { old_string: 'alpha', new_string: 'gamma', replace_all: true },
        { old_string: 'beta', new_string: 'delta' },
      ],
    });
    expect(failed.status).toBe(422);
    expect(failed.body.error).toMatchObject({ code: 'MULTIPLE_MATCHES', details: { matches: 10_000, edit_index: 1 } });
    expect(failed.body.error.message).toMatch(/^edit 2 of 2: /);
    expect((await bytes('big.txt')).toString()).toBe(text);
    const res = await multi({
      file_path: 'big.txt',
      edits: [
        { old_string: 'alpha', new_string: 'gamma', replace_all: true },
        { old_string: 'gamma beta\nend', new_string: 'gamma omega\nend' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ file_path: 'big.txt', edits_applied: 2, replacements: 10_001, matches: ['exact', 'exact'] });
    expect((await bytes('big.txt')).toString()).toBe(`${'gamma beta\n'.repeat(9_999)}gamma omega\nend\n`);
  });

  it('writes nothing when any edit fails, naming it with details.edit_index and "edit 3 of 3"', async () => {
    await put('a.txt', 'one\ntwo\nthree\n');
    await readFully(t, 'a.txt');
    const res = await multi({
      file_path: 'a.txt',
      edits: [
        { old_string: 'one', new_string: '1' },
        { old_string: 'two', new_string: '2' },
        { old_string: 'four', new_string: '4' },
      ],
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('STRING_NOT_FOUND');
    expect(res.body.error.details.edit_index).toBe(2);
    expect(res.body.error.message).toMatch(/^edit 3 of 3: old_string was not found in a\.txt/);
    expect((await bytes('a.txt')).toString()).toBe('one\ntwo\nthree\n');
    expect(await t.app.services.history.list('a.txt')).toEqual([]);
  });

  it('a later edit sees what an earlier one wrote: MULTIPLE_MATCHES with rung and lines', async () => {
    await put('a.txt', 'a\nb\n');
    await readFully(t, 'a.txt');
    const res = await multi({
      file_path: 'a.txt',
      edits: [
        { old_string: 'a', new_string: 'b' },
        { old_string: 'b', new_string: 'c' },
      ],
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({
      code: 'MULTIPLE_MATCHES',
      details: { matches: 2, rung: 'exact', lines: [1, 2], edit_index: 1 },
    });
    expect(res.body.error.message).toMatch(/^edit 2 of 2: /);
    expect((await bytes('a.txt')).toString()).toBe('a\nb\n');
  });

  it('answers NO_CHANGE for an edit whose old_string equals its new_string', async () => {
    await put('a.txt', 'a\n');
    const res = await multi({
      file_path: 'a.txt',
      edits: [
        { old_string: 'a', new_string: 'b' },
        { old_string: 'x', new_string: 'x' },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'NO_CHANGE', details: { edit_index: 1 } });
    expect(res.body.error.message).toMatch(/^edit 2 of 2: /);
  });

  it('creates a missing file when the first edit’s old_string is empty; FILE_NOT_FOUND otherwise', async () => {
    const res = await multi({
      file_path: 'new/b.txt',
      edits: [
        { old_string: '', new_string: 'hello world\n' },
        { old_string: 'world', new_string: 'there' },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.result).toMatchObject({ edits_applied: 2, replacements: 2, matches: ['exact', 'exact'] });
    expect((await bytes('new/b.txt')).toString()).toBe('hello there\n');
    const missing = await multi({ file_path: 'none.txt', edits: [{ old_string: 'a', new_string: 'b' }] });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('FILE_NOT_FOUND');
  });

  it('keeps Edit’s checks: WRONG_TOOL, FILE_EXISTS, FILE_NOT_READ, and 1–100 edits', async () => {
    await put('n.ipynb', '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}');
    expect((await multi({ file_path: 'n.ipynb', edits: [{ old_string: 'a', new_string: 'b' }] })).body.error.code).toBe('WRONG_TOOL');
    await put('a.txt', 'x\n');
    expect((await multi({ file_path: 'a.txt', edits: [{ old_string: '', new_string: 'y' }] })).status).toBe(409);
    expect((await multi({ file_path: 'a.txt', edits: [{ old_string: '', new_string: 'y' }] })).body.error.code).toBe('FILE_EXISTS');
    expect((await multi({ file_path: 'a.txt', edits: [{ old_string: 'x', new_string: 'y' }] })).body.error.code).toBe('FILE_NOT_READ');
    expect((await multi({ file_path: 'a.txt', edits: [] })).body.error.code).toBe('INVALID_INPUT');
    const many = Array.from({ length: 101 }, (_, i) => ({ old_string: `${i}`, new_string: `${i}!` }));
    expect((await multi({ file_path: 'a.txt', edits: many })).body.error.code).toBe('INVALID_INPUT');
    expect((await bytes('a.txt')).toString()).toBe('x\n');
  });

  it('one write: one history version and one event with tool MultiEdit', async () => {
    await put('a.txt', 'a b c\n');
    await readFully(t, 'a.txt');
    const events: Array<{ tool: string }> = [];
    t.app.services.writeListeners.push((e) => events.push({ tool: e.tool }));
    const res = await multi({ file_path: 'a.txt', edits: ['a', 'b', 'c'].map((w) => ({ old_string: w, new_string: w.toUpperCase() })) });
    expect(res.status).toBe(200);
    expect((await bytes('a.txt')).toString()).toBe('A B C\n');
    expect(events).toEqual([{ tool: 'MultiEdit' }]);
    const versions = await t.app.services.history.list('a.txt');
    expect(versions).toHaveLength(1);
    expect(versions[0]).toMatchObject({ tool: 'MultiEdit' });
  });

  it('keeps CRLF and every byte outside the edits', async () => {
    await put('w.txt', 'one\r\ntwo\nthree\r\n');
    await readFully(t, 'w.txt');
    const res = await multi({
      file_path: 'w.txt',
      edits: [
        { old_string: 'one', new_string: '1\n1' },
        { old_string: 'three', new_string: '3' },
      ],
    });
    expect(res.status).toBe(200);
    expect((await bytes('w.txt')).toString()).toBe('1\r\n1\r\ntwo\n3\r\n');
  });
});
