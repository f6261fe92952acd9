import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deepNotebook } from '../bench/support/heavy-fixtures.js';
import { makeTestApp, type TestApp } from './helpers.js';

/**
 * The one notebook-JSON rule (src/notebook/model.ts parseNotebook, docs/notebooks.md), asked of
 * every tool that applies it: Read (notebook view, else text with notebook_error), Write and
 * ApplyPatch's Add (else 422 INVALID_NOTEBOOK, nothing written), NotebookEdit (also nbformat 4).
 */
let t: TestApp;
beforeAll(async () => {
  t = await makeTestApp();
});
afterAll(async () => t.close());

/** Jupyter's own layout (1-space indent, trailing newline), so NotebookEdit's bytes are predictable. */
const jupyter = (nb: unknown) => `${JSON.stringify(nb, null, 1)}\n`;
const markdown = (source: string) => ({ cell_type: 'markdown', id: 'a', metadata: {}, source: [source] });

interface Case {
  name: string;
  content: string;
  /** null: Read shows a notebook, Write writes it; else the phrase notebook_error and the 422 message carry. */
  invalid: string | null;
  /** What NotebookEdit's 422 says, when it refuses a notebook the others take. */
  editRefusal?: string;
  /** What Write's and ApplyPatch's 422 say, when they refuse a notebook Read takes (a top-level `cells` array). */
  writeRefusal?: string;
  cells?: number;
}

const cases: Case[] = [
  { name: 'not JSON', content: '{"cells": [\n', invalid: 'not valid JSON' },
  { name: 'JSON not an object', content: '[{"cells": []}]\n', invalid: 'its JSON is not an object' },
  { name: 'missing cells', content: jupyter({ metadata: {}, nbformat: 4, nbformat_minor: 5 }), invalid: 'it has no "cells" array' },
  {
    name: 'nbformat 3',
    content: jupyter({
      metadata: {},
      nbformat: 3,
      nbformat_minor: 0,
      worksheets: [{ cells: [{ cell_type: 'markdown', metadata: {}, source: ['a'] }], metadata: {} }],
    }),
    invalid: null,
    editRefusal: 'this one is nbformat 3',
    writeRefusal: 'it has no "cells" array (nbformat 3 keeps its cells in worksheets)',
    cells: 1,
  },
  { name: 'nbformat 4 without minor', content: jupyter({ cells: [markdown('a')], metadata: {}, nbformat: 4 }), invalid: null, cells: 1 },
  { name: 'nbformat 5', content: jupyter({ cells: [markdown('a')], metadata: {}, nbformat: 5, nbformat_minor: 0 }), invalid: 'nbformat 5' },
  {
    name: 'nbformat as a string',
    content: jupyter({ cells: [], metadata: {}, nbformat: '4', nbformat_minor: 5 }),
    invalid: 'no integer "nbformat"',
  },
  {
    name: 'cells not an array',
    content: jupyter({ cells: {}, metadata: {}, nbformat: 4, nbformat_minor: 5 }),
    invalid: 'its "cells" is not an array',
  },
  {
    name: 'a cell without cell_type',
    content: jupyter({ cells: [{ id: 'a', metadata: {}, source: ['a'] }], metadata: {}, nbformat: 4, nbformat_minor: 5 }),
    invalid: null,
    cells: 1,
  },
  { name: 'deep nesting', content: deepNotebook(1000), invalid: 'nests deeper than 512 levels' },
];

const exists = (rel: string) =>
  fsp.stat(path.join(t.root, rel)).then(
    () => true,
    () => false,
  );

describe.each(cases)('notebook JSON rule: $name', ({ name, content, invalid, editRefusal, writeRefusal, cells }) => {
  const slug = name.replace(/\W+/g, '-');

  it(invalid === null ? 'Read shows it as a notebook' : 'Read returns it as text with notebook_error', async () => {
    await fsp.writeFile(path.join(t.root, `read-${slug}.ipynb`), content);
    const res = await t.request.post('/v1/tools/read').send({ file_path: `read-${slug}.ipynb` });
    expect(res.status).toBe(200);
    if (invalid === null) {
      expect(res.body.result.type).toBe('notebook');
      expect(res.body.result.file.total_cells).toBe(cells);
    } else {
      expect(res.body.result.type).toBe('text');
      expect(res.body.result.file.notebook_error).toContain(invalid);
    }
  });

  const writeInvalid = invalid ?? writeRefusal ?? null;
  it(writeInvalid === null ? 'Write writes it (200), byte for byte' : 'Write answers 422 INVALID_NOTEBOOK and writes nothing', async () => {
    const rel = `write-${slug}.ipynb`;
    const res = await t.request.post('/v1/tools/write').send({ file_path: rel, content });
    if (writeInvalid === null) {
      expect([res.status, res.body.result.type]).toEqual([200, 'create']);
      expect(await fsp.readFile(path.join(t.root, rel), 'utf8')).toBe(content);
    } else {
      expect([res.status, res.body.error.code]).toEqual([422, 'INVALID_NOTEBOOK']);
      expect(res.body.error.message).toContain(writeInvalid);
      expect(await exists(rel)).toBe(false);
    }
  });

  it(writeInvalid === null ? 'ApplyPatch adds it (200)' : 'ApplyPatch Add answers 422 INVALID_NOTEBOOK and writes nothing', async () => {
    const rel = `patch-${slug}.ipynb`;
    const lines = content
      .replace(/\n$/, '')
      .split('\n')
      .map((l) => `+${l}\n`)
      .join('');
    const res = await t.request
      .post('/v1/tools/apply_patch')
      .send({ patch: `*** Begin Patch\n*** Add File: ${rel}\n${lines}*** End Patch\n` });
    if (writeInvalid === null) {
      expect(res.status).toBe(200);
      expect(await fsp.readFile(path.join(t.root, rel), 'utf8')).toBe(content.endsWith('\n') ? content : `${content}\n`);
    } else {
      expect([res.status, res.body.error.code]).toEqual([422, 'INVALID_NOTEBOOK']);
      expect(await exists(rel)).toBe(false);
    }
  });

  const refusal = invalid ?? editRefusal;
  it(refusal === undefined ? 'NotebookEdit edits it (200)' : 'NotebookEdit answers 422 INVALID_NOTEBOOK, bytes unchanged', async () => {
    const rel = `edit-${slug}.ipynb`;
    await fsp.writeFile(path.join(t.root, rel), content);
    expect((await t.request.post('/v1/tools/read').send({ file_path: rel })).status).toBe(200);
    const res = await t.request.post('/v1/tools/notebook_edit').send({ notebook_path: rel, cell_id: 'cell-0', new_source: 'b' });
    if (refusal === undefined) {
      expect(res.status).toBe(200);
      // Only the cell's source line changes (the file's own layout is kept).
      expect(await fsp.readFile(path.join(t.root, rel), 'utf8')).toBe(
        content.replace('"source": [\n    "a"\n   ]', '"source": [\n    "b"\n   ]'),
      );
    } else {
      expect([res.status, res.body.error.code]).toEqual([422, 'INVALID_NOTEBOOK']);
      expect(res.body.error.message).toContain(refusal);
      expect(res.body.error.message).toMatch(/Write/);
      expect(await fsp.readFile(path.join(t.root, rel), 'utf8')).toBe(content);
    }
  });
});

describe('notebook JSON rule: Grep and restore follow it', () => {
  it('Grep searches an nbformat 5 file as one text (no cell ids), a valid one by cells', async () => {
    await fsp.writeFile(path.join(t.root, 'g5.ipynb'), cases.find((c) => c.name === 'nbformat 5')!.content);
    await fsp.writeFile(path.join(t.root, 'g4.ipynb'), cases.find((c) => c.name === 'nbformat 4 without minor')!.content);
    const res = await t.request.post('/v1/tools/grep').send({ pattern: '"a"', glob: 'g*.ipynb', output_mode: 'content' });
    expect(res.status).toBe(200);
    expect(res.body.text).toContain('g5.ipynb:');
    expect(res.body.text).not.toContain('g4.ipynb');
  });
});
