import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isToolError, type ToolError } from '../../errors.js';
import { makeWriteTestbed, type WriteTestbed } from '../../../test/support/test-context.js';
import { runNotebookEdit } from './run.js';
import { notebookEditInput } from './schema.js';

let bed: WriteTestbed;
beforeEach(async () => {
  bed = await makeWriteTestbed();
});
afterEach(async () => {
  await bed.close();
});

const file = () => path.join(bed.root, 'n.ipynb');
const text = () => fsp.readFile(file(), 'utf8');

async function edit(session: string, body: Record<string, unknown>) {
  const input = notebookEditInput.parse({ notebook_path: 'n.ipynb', ...body });
  const ctx = bed.ctx(session);
  return runNotebookEdit(input, ctx, await ctx.resolve(input.notebook_path, 'write'));
}

async function failure(session: string, body: Record<string, unknown>): Promise<ToolError> {
  const err = await edit(session, body).then(
    () => new Error('succeeded'),
    (e: unknown) => e,
  );
  if (!isToolError(err)) throw err;
  return err;
}

/** One line per cell, as the README walk-through writes a notebook. */
function compact(sources: Array<[id: string | null, source: string]>): string {
  const cells = sources.map(
    ([id, source]) => `  {"cell_type": "markdown", ${id === null ? '' : `"id": "${id}", `}"metadata": {}, "source": ["${source}"]}`,
  );
  const minor = sources.some(([id]) => id === null) ? 4 : 5;
  return `{"cells": [\n${cells.join(',\n')}\n ],\n "metadata": {}, "nbformat": 4, "nbformat_minor": ${minor}}\n`;
}

async function bothRead(content: string): Promise<void> {
  await fsp.writeFile(file(), content);
  await bed.markRead('n.ipynb', 'A');
  await bed.markRead('n.ipynb', 'B');
  await bed.markRead('n.ipynb', 'D');
}

describe('NotebookEdit on a notebook changed since the read', () => {
  it("merges an edit of another cell: both land, and the answer carries the other writer's diff and lines", async () => {
    await bothRead(
      compact([
        ['a', 'A'],
        ['b', 'B'],
        ['c', 'C'],
      ]),
    );
    await edit('A', { cell_id: 'a', new_source: 'A2' });
    const out = await edit('B', { cell_id: 'c', new_source: 'C2' });
    expect(await text()).toBe(
      compact([
        ['a', 'A2'],
        ['b', 'B'],
        ['c', 'C2'],
      ]),
    );
    expect(out.result.merged?.lines).toEqual([[2, 2]]);
    const diff = [
      'diff --git a/n.ipynb b/n.ipynb',
      '--- a/n.ipynb',
      '+++ b/n.ipynb',
      '@@ -1,6 +1,6 @@',
      ' {"cells": [',
      '-  {"cell_type": "markdown", "id": "a", "metadata": {}, "source": ["A"]},',
      '+  {"cell_type": "markdown", "id": "a", "metadata": {}, "source": ["A2"]},',
      '   {"cell_type": "markdown", "id": "b", "metadata": {}, "source": ["B"]},',
      '   {"cell_type": "markdown", "id": "c", "metadata": {}, "source": ["C"]}',
      '  ],',
      '  "metadata": {}, "nbformat": 4, "nbformat_minor": 5}',
    ].join('\n');
    expect(out.result.merged?.diff).toBe(`${diff}\n`);
    expect(out.text).toBe(
      'The notebook n.ipynb had changed since your read (by the user or another tool); that change was kept and your edit was merged into it. ' +
        `What changed since your read:\n${diff}\nUpdated cell c with C2`,
    );
    // The session has seen the merged version: it edits again without a new read.
    await edit('B', { cell_id: 'b', new_source: 'B2' });
    expect(await text()).toBe(
      compact([
        ['a', 'A2'],
        ['b', 'B2'],
        ['c', 'C2'],
      ]),
    );
  });

  it('refuses an edit of the cell the other writer changed: 409 with the conflicting cell ids, nothing written', async () => {
    await bothRead(
      compact([
        ['a', 'A'],
        ['b', 'B'],
      ]),
    );
    await edit('A', { cell_id: 'a', new_source: 'A2' });
    const theirs = await text();
    const err = await failure('B', { cell_id: 'a', edit_mode: 'edit', old_string: 'A', new_string: 'A3' });
    expect([err.code, err.status]).toEqual(['FILE_MODIFIED_SINCE_READ', 409]);
    expect((err.details as { conflict: string[] }).conflict).toEqual(['a']);
    expect(await text()).toBe(theirs);
  });

  it('follows positions: after another writer inserts at the top, cell-2 still edits the cell the session was shown', async () => {
    await bothRead(
      compact([
        [null, 'A'],
        [null, 'B'],
        [null, 'C'],
      ]),
    );
    await edit('A', { edit_mode: 'insert', cell_type: 'markdown', new_source: 'TOP' });
    const out = await edit('B', { cell_id: 'cell-2', new_source: 'C2' });
    expect(out.result.cell_id).toBe('cell-3');
    expect(JSON.parse(await text()).cells.map((c: { source: string[] }) => c.source.join(''))).toEqual(['TOP', 'A', 'B', 'C2']);
  });

  it('merges inserts, deletes and moves whose neighbours are untouched, and refuses one whose neighbour went', async () => {
    await bothRead(
      compact([
        ['a', 'A'],
        ['b', 'B'],
        ['c', 'C'],
        ['d', 'D'],
        ['e', 'E'],
      ]),
    );
    await edit('A', { cell_id: 'a', new_source: 'A2' });
    await edit('B', { cell_id: 'd', edit_mode: 'delete' });
    await bed.markRead('n.ipynb', 'C');
    await edit('A', { cell_id: 'b', edit_mode: 'delete' });
    await edit('C', { cell_id: 'e', edit_mode: 'move', after_cell_id: '' });
    expect(JSON.parse(await text()).cells.map((c: { id: string }) => c.id)).toEqual(['e', 'a', 'c']);
    // D read the first version: the gap after a (before b) is gone.
    const err = await failure('D', { cell_id: 'a', edit_mode: 'insert', cell_type: 'code', new_source: 'x' });
    expect((err.details as { conflict: string[] }).conflict).toEqual(['a', 'b']);
  });

  it("merges an edit into a notebook a person's editor changed outside the cells", async () => {
    const before = compact([['a', 'A']]);
    await bothRead(before);
    const theirs = before.replace('"metadata": {}, "nbformat"', '"metadata": {"kernelspec": {"name": "python3"}}, "nbformat"');
    await fsp.writeFile(file(), theirs);
    const out = await edit('B', { cell_id: 'a', new_source: 'A2' });
    expect(await text()).toBe(theirs.replace('["A"]', '["A2"]'));
    expect(out.result.merged?.lines).toEqual([[4, 4]]);
  });

  it('lands every one of ten sessions editing different cells of the version they all read, at once', async () => {
    const ids = Array.from({ length: 10 }, (_, i) => `c${i}`);
    await fsp.writeFile(file(), compact(ids.map((id) => [id, id.toUpperCase()])));
    for (const id of ids) await bed.markRead('n.ipynb', id);
    const outs = await Promise.all(
      ids.map((id) => edit(id, { cell_id: id, edit_mode: 'edit', old_string: id.toUpperCase(), new_string: `${id} done` })),
    );
    expect(await text()).toBe(compact(ids.map((id) => [id, `${id} done`])));
    expect(outs.filter((o) => o.result.merged !== undefined)).toHaveLength(9);
  });

  it('shows 200 lines of a longer diff, and then the session has not seen the merged version', async () => {
    await bothRead(
      compact([
        ['a', 'A'],
        ['b', 'B'],
        ['c', 'C'],
      ]),
    );
    // A person's editor puts 300 lines in front of the cells.
    const theirs = (await text()).replace(
      '{"cells": [\n',
      `{"cells": [\n${'  {"cell_type": "markdown", "metadata": {}, "source": []},\n'.repeat(300)}`,
    );
    await fsp.writeFile(file(), theirs);
    const out = await edit('B', { cell_id: 'c', new_source: 'C2' });
    expect(out.text).toContain('\n… (the diff goes on; Read the notebook to see all of it)\nUpdated cell c with C2');
    expect(await text()).toBe(theirs.replace('["C"]', '["C2"]'));
    // Its read is still of the version before: its own change to c now stands in the way.
    const err = await failure('B', { cell_id: 'c', new_source: 'C3' });
    expect([err.code, (err.details as { conflict: string[] }).conflict]).toEqual(['FILE_MODIFIED_SINCE_READ', ['c']]);
  });
});
