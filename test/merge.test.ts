import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, readFully, type TestApp } from './helpers.js';

/**
 * Merged, not refused: two sessions read one version; the first writes; the second's write,
 * made on the version it read, is merged with the first's when the two touch no common or
 * adjacent line, and refused with the conflicting lines otherwise.
 */
let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await t.close();
});

const file = (rel: string) => path.join(t.root, rel);
const put = (rel: string, text: string | Buffer) => fsp.writeFile(file(rel), text);
const text = async (rel: string) => fsp.readFile(file(rel), 'utf8');
const call = (tool: string, body: Record<string, unknown>, session: string) =>
  t.request.post(`/v1/tools/${tool}`).set('X-Session-Id', session).send(body);
const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
const change = (s: string, n: number, to: string) => s.replace(`\nline ${n}\n`, `\n${to}\n`);

async function bothRead(rel: string, content: string): Promise<void> {
  await put(rel, content);
  await readFully(t, rel, 'A');
  await readFully(t, rel, 'B');
}

const edit = (session: string, n: number, to: string) =>
  call('edit', { file_path: 'a.txt', old_string: `\nline ${n}\n`, new_string: `\n${to}\n` }, session);

describe('Edit', () => {
  it('lands both edits of disjoint lines; the second answer carries the first one’s diff and regions', async () => {
    const original = lines(1000);
    await bothRead('a.txt', original);
    expect((await edit('A', 10, 'A was here')).status).toBe(200);
    const res = await edit('B', 900, 'B was here');
    expect(res.status).toBe(200);
    const both = change(change(original, 10, 'A was here'), 900, 'B was here');
    expect(await text('a.txt')).toBe(both);
    expect(res.body.result.merged).toEqual({
      diff: 'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -6,9 +6,9 @@\n line 6\n line 7\n line 8\n line 9\n-line 10\n+A was here\n line 11\n line 12\n line 13\n line 14\n',
      lines: [[10, 10]],
    });
    expect(res.body.text).toContain('has been updated successfully');
    expect(res.body.text).toContain('had been changed since your read');
    expect(res.body.text).toContain('+A was here');
    // The answer's patch is the change from the file found (A's) to the one written.
    expect(res.body.result.structured_patch).toHaveLength(1);
    expect(res.body.result.structured_patch[0].lines.filter((l: string) => /^[-+]/.test(l))).toEqual(['-line 900', '+B was here']);
    // B has now seen the merged file: its next edit needs no read.
    expect((await edit('B', 500, 'B again')).status).toBe(200);
  });

  it('refuses an edit of the same or an adjacent line with details.conflict; nothing changes', async () => {
    const original = lines(1000);
    await bothRead('a.txt', original);
    expect((await edit('A', 10, 'A was here')).status).toBe(200);
    const afterA = await text('a.txt');
    const same = await edit('B', 10, 'B was here');
    expect(same.status).toBe(409);
    expect(same.body.error.code).toBe('FILE_MODIFIED_SINCE_READ');
    expect(same.body.error.details.conflict).toEqual([[10, 10]]);
    expect(same.body.error.details.diff).toContain('+A was here');
    expect(same.body.error.message).toContain('line 10 of the current file');
    expect(await text('a.txt')).toBe(afterA);
    // Adjacent (no unchanged line between) is a conflict too, as git merge-file has it.
    await readFully(t, 'a.txt', 'C');
    await put('a.txt', change(afterA, 12, 'someone else'));
    const adjacent = await call('edit', { file_path: 'a.txt', old_string: '\nline 11\n', new_string: '\nC\n' }, 'C');
    expect(adjacent.status).toBe(409);
    expect(adjacent.body.error.details.conflict).toEqual([[11, 12]]);
  });

  it('past 200 diff lines: merged.truncated, and the session must read again before its next change', async () => {
    const original = lines(1000);
    await bothRead('a.txt', original);
    let theirs = original;
    for (let n = 1; n <= 300; n += 3) theirs = change(theirs, n, `other ${n}`);
    await put('a.txt', theirs);
    const res = await edit('B', 900, 'B was here');
    expect(res.status).toBe(200);
    expect(await text('a.txt')).toBe(change(theirs, 900, 'B was here'));
    expect(res.body.result.merged.truncated).toBe(true);
    expect(res.body.result.merged.diff.split('\n')).toHaveLength(201);
    expect(res.body.text).toContain('Read the file again');
    // B has not seen the merged file: a change of its own new line is refused until it reads.
    const next = await call('edit', { file_path: 'a.txt', old_string: 'B was here', new_string: 'B again' }, 'B');
    expect(next.status).toBe(409);
    await readFully(t, 'a.txt', 'B');
    expect((await call('edit', { file_path: 'a.txt', old_string: 'B was here', new_string: 'B again' }, 'B')).status).toBe(200);
  });

  it('merges the same change made on both sides', async () => {
    await bothRead('a.txt', lines(20));
    expect((await edit('A', 5, 'five')).status).toBe(200);
    const res = await edit('B', 5, 'five');
    expect(res.status).toBe(200);
    expect(await text('a.txt')).toBe(change(lines(20), 5, 'five'));
    expect(res.body.result.merged.lines).toEqual([[5, 5]]);
  });
});

describe('Write, MultiEdit, compat', () => {
  it('Write: a whole new content made on the read version merges; one that rewrites A’s line conflicts', async () => {
    const original = lines(1000);
    await bothRead('a.txt', original);
    expect((await edit('A', 10, 'A was here')).status).toBe(200);
    const afterA = await text('a.txt');
    const res = await call('write', { file_path: 'a.txt', content: change(original, 900, 'B wrote') }, 'B');
    expect(res.status).toBe(200);
    expect(await text('a.txt')).toBe(change(afterA, 900, 'B wrote'));
    expect(res.body.result.original_file).toBe(afterA);
    expect(res.body.result.merged.lines).toEqual([[10, 10]]);
    await readFully(t, 'a.txt', 'D');
    const seenByD = await text('a.txt');
    expect((await edit('A', 20, 'A again')).status).toBe(200);
    const conflict = await call('write', { file_path: 'a.txt', content: change(seenByD, 20, 'D wrote') }, 'D');
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.details.conflict).toEqual([[20, 20]]);
  });

  it('Write is not merged for a session that saw only part of the read version', async () => {
    await put('a.txt', lines(50));
    await readFully(t, 'a.txt', 'A');
    expect((await call('read', { file_path: 'a.txt', offset: 1, limit: 5 }, 'B')).status).toBe(200);
    expect((await edit('A', 10, 'A was here')).status).toBe(200);
    const res = await call('write', { file_path: 'a.txt', content: change(lines(50), 40, 'B') }, 'B');
    expect(res.status).toBe(409);
    expect(res.body.error.details.conflict).toBeUndefined();
  });

  it('MultiEdit merges its edits with another writer’s and conflicts on a shared line', async () => {
    const original = lines(1000);
    await bothRead('a.txt', original);
    expect((await edit('A', 10, 'A was here')).status).toBe(200);
    const edits = [
      { old_string: '\nline 500\n', new_string: '\nB 500\n' },
      { old_string: '\nline 900\n', new_string: '\nB 900\n' },
    ];
    const res = await call('multi_edit', { file_path: 'a.txt', edits }, 'B');
    expect(res.status).toBe(200);
    expect(res.body.result.merged.lines).toEqual([[10, 10]]);
    expect(await text('a.txt')).toBe(change(change(change(original, 10, 'A was here'), 500, 'B 500'), 900, 'B 900'));
    await readFully(t, 'a.txt', 'C');
    expect((await edit('A', 30, 'A 30')).status).toBe(200);
    const before = await text('a.txt');
    const edits2 = [
      { old_string: '\nline 600\n', new_string: '\nC 600\n' },
      { old_string: '\nline 31\n', new_string: '\nC 31\n' },
    ];
    const conflict = await call('multi_edit', { file_path: 'a.txt', edits: edits2 }, 'C');
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.details.conflict).toEqual([[30, 31]]);
    expect(await text('a.txt')).toBe(before);
  });

  it('the text editor’s str_replace and insert merge, and a conflict is an is_error answer', async () => {
    const original = lines(100);
    await bothRead('a.txt', original);
    expect((await edit('A', 10, 'A was here')).status).toBe(200);
    const te = (body: Record<string, unknown>) =>
      t.request
        .post('/v1/compat/anthropic/text-editor')
        .set('X-Session-Id', 'B')
        .send({ path: 'a.txt', ...body });
    const replaced = await te({ command: 'str_replace', old_str: '\nline 90\n', new_str: '\nB 90\n' });
    expect(replaced.body.is_error).toBe(false);
    expect(replaced.body.content).toContain('had been changed since your read');
    await readFully(t, 'a.txt', 'C');
    expect((await edit('A', 50, 'A 50')).status).toBe(200);
    const inserted = await t.request
      .post('/v1/compat/anthropic/text-editor')
      .set('X-Session-Id', 'C')
      .send({ path: 'a.txt', command: 'insert', insert_line: 80, insert_text: 'C inserted\n' });
    expect(inserted.body.is_error).toBe(false);
    expect(await text('a.txt')).toBe(
      change(change(change(original, 10, 'A was here'), 90, 'B 90'), 50, 'A 50').replace('\nline 80\n', '\nline 80\nC inserted\n'),
    );
    expect((await edit('A', 70, 'A 70')).status).toBe(200);
    const conflict = await te({ command: 'str_replace', old_str: '\nline 70\n', new_str: '\nB 70\n' });
    expect(conflict.body.is_error).toBe(true);
    expect(conflict.body.content).toContain('could not be merged');
  });
});
