import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CORPUS, corpusNames, describeCorpus } from '../../test/support/corpus.js';
import { NOTEBOOK_TEXT_BUDGET, readNotebook } from './read-notebook.js';
import { notebookReadResultSchema } from './schema.js';

const dirs = ['notebooks', 'nbformat/tests'];
const files = dirs.flatMap((dir) =>
  corpusNames(dir)
    .filter((name) => name.endsWith('.ipynb'))
    .map((name) => `${dir}/${name}`),
);

function load(rel: string): string {
  return readFileSync(path.join(CORPUS, rel), 'utf8');
}

function ok(outcome: ReturnType<typeof readNotebook>) {
  if (!outcome.ok) throw new Error(`expected a notebook: ${outcome.error}`);
  return outcome;
}

function notebook(cells: unknown[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ cells, metadata: {}, nbformat: 4, nbformat_minor: 5, ...extra }, null, 1) + '\n';
}

describeCorpus('readNotebook on the corpus', () => {
  it.each(files)('reads %s as cells, with a result that matches its schema and no base64', (rel) => {
    const text = load(rel);
    const read = ok(readNotebook(text, rel, {}));
    expect(notebookReadResultSchema.parse(read.result)).toEqual(read.result);
    expect(read.text.length).toBeLessThanOrEqual(NOTEBOOK_TEXT_BUDGET);
    expect(read.text).not.toMatch(/iVBORw0KGgo/); // PNG base64 signature
    expect(read.text).not.toContain('\u001b[');
    expect(read.result.file.cells).toHaveLength(read.total);
    expect(read.range).toEqual(read.total === 0 ? null : [1, read.total]);
  });

  it('names cells without ids cell-N and takes the language from language_info', () => {
    const read = ok(readNotebook(load('notebooks/zh-ML-Exercise3.ipynb'), 'zh.ipynb', {}));
    expect(read.result.file.cells.map((c) => c.cell_id).slice(0, 3)).toEqual(['cell-0', 'cell-1', 'cell-2']);
    expect(read.result.file.language).toBe('python');
    expect(read.result.file.nbformat_minor).toBe(1);
    expect(read.text).toContain('机器学习练习 3');
  });

  it("uses the cells' own ids in nbformat 4.5", () => {
    const read = ok(readNotebook(load('nbformat/tests/test4.5.ipynb'), 't.ipynb', {}));
    expect(read.result.file.cells[0]?.cell_id).toBe('2fcdfa53');
    expect(read.text).toContain('<cell id="2fcdfa53" index="0" type="markdown">');
  });

  it('shows an image output as a one-line placeholder with its media type and size', () => {
    const read = ok(readNotebook(load('notebooks/04.10-Customizing-Ticks.ipynb'), 'n.ipynb', {}));
    const images = read.result.file.cells.flatMap((c) => c.outputs).filter((o) => o.media_type === 'image/png');
    expect(images.length).toBeGreaterThan(0);
    expect(images[0]?.size).toBeGreaterThan(1000);
    expect(read.text).toMatch(/\[image\/png output, \d+ bytes, not shown\]/);
  });

  it('renders an error traceback as text without ANSI escapes', () => {
    const read = ok(readNotebook(load('nbformat/tests/many_tracebacks.ipynb'), 'n.ipynb', {}));
    const error = read.result.file.cells[0]?.outputs[0];
    expect(error?.output_type).toBe('error');
    expect(error?.text).toContain('NameError');
    expect(error?.text).not.toContain('\u001b');
  });

  it('renders nbformat 3 notebooks from their first worksheet', () => {
    const read = ok(readNotebook(load('nbformat/tests/test3.ipynb'), 'n.ipynb', {}));
    expect(read.result.file.nbformat).toBe(3);
    expect(read.total).toBeGreaterThan(0);
    const code = read.result.file.cells.find((c) => c.cell_type === 'code');
    expect(code?.source).not.toBe('');
    expect(read.result.file.cells.every((c) => c.cell_id === `cell-${c.index}`)).toBe(true);
  });

  it('reads an nbformat 3 notebook without worksheets as 0 cells', () => {
    const read = ok(readNotebook(load('nbformat/tests/test3_no_worksheets.ipynb'), 'n.ipynb', {}));
    expect(read.total).toBe(0);
    expect(read.range).toBeNull();
    expect(read.text).toContain('has no cells');
  });
});

describe('readNotebook paging', () => {
  const cells = Array.from({ length: 5 }, (_, i) => ({
    cell_type: 'markdown',
    id: `c${i}`,
    metadata: {},
    source: [`cell ${i}`],
  }));

  it('counts offset and limit in cells and ends a partial page with the hint to continue', () => {
    const read = ok(readNotebook(notebook(cells), 'n.ipynb', { offset: 2, limit: 2 }));
    expect(read.range).toEqual([2, 3]);
    expect(read.result.file.cells.map((c) => c.cell_id)).toEqual(['c1', 'c2']);
    expect(read.result.file.total_cells).toBe(5);
    expect(read.text.split('\n').at(-1)).toContain('offset=4');
  });

  it('has no hint when the page reaches the last cell', () => {
    const read = ok(readNotebook(notebook(cells), 'n.ipynb', { offset: 4 }));
    expect(read.range).toEqual([4, 5]);
    expect(read.text).not.toContain('offset=');
  });

  it('answers an offset past the end with no cells and the number of cells', () => {
    const read = ok(readNotebook(notebook(cells), 'n.ipynb', { offset: 9 }));
    expect(read.range).toBeNull();
    expect(read.result.file.cells).toEqual([]);
    expect(read.text).toContain('has 5 cells');
  });

  it('returns as many cells as fit in the budget, hint included, when they do not all fit', () => {
    const big = Array.from({ length: 30 }, (_, i) => ({
      cell_type: 'code',
      execution_count: null,
      metadata: {},
      outputs: [],
      source: 'x'.repeat(9_000) + String(i),
    }));
    const read = ok(readNotebook(notebook(big), 'n.ipynb', { limit: 30 }));
    expect(read.text.length).toBeLessThanOrEqual(NOTEBOOK_TEXT_BUDGET);
    const end = read.range?.[1] ?? 0;
    expect(end).toBeGreaterThan(5);
    expect(end).toBeLessThan(30);
    expect(read.text).toContain(`offset=${end + 1}`);
    const next = ok(readNotebook(notebook(big), 'n.ipynb', { offset: end + 1 }));
    expect(next.range?.[0]).toBe(end + 1);
  });

  it('cuts a single cell larger than the budget in the text, never in the result', () => {
    const huge = [
      { cell_type: 'markdown', metadata: {}, source: 'y'.repeat(150_000) },
      { cell_type: 'markdown', metadata: {}, source: 'next' },
    ];
    const read = ok(readNotebook(notebook(huge), 'n.ipynb', {}));
    expect(read.range).toEqual([1, 1]);
    expect(read.result.file.cells[0]?.source).toHaveLength(150_000);
    expect(read.text.length).toBeLessThanOrEqual(NOTEBOOK_TEXT_BUDGET);
    expect(read.text).toContain('truncated');
    expect(read.text).toContain('offset=2');
  });

  it('cuts each output text at 2,000 characters and marks it', () => {
    const withOutput = [
      {
        cell_type: 'code',
        execution_count: 1,
        metadata: {},
        outputs: [{ name: 'stdout', output_type: 'stream', text: ['z'.repeat(5000)] }],
        source: 'print()',
      },
    ];
    const read = ok(readNotebook(notebook(withOutput), 'n.ipynb', {}));
    const text = read.result.file.cells[0]?.outputs[0]?.text ?? '';
    expect(text).toBe('z'.repeat(2000) + '… [truncated]');
    expect(read.text).toContain('z'.repeat(2000) + '… [truncated]');
    expect(read.result.file.cells[0]?.execution_count).toBe(1);
  });

  it('falls back to kernelspec.language, then python', () => {
    const ks = { metadata: { kernelspec: { language: 'R', name: 'ir' } } };
    expect(ok(readNotebook(notebook([], ks), 'n.ipynb', {})).result.file.language).toBe('R');
    expect(ok(readNotebook(notebook([]), 'n.ipynb', {})).result.file.language).toBe('python');
  });
});

describe('readNotebook on text that is not a notebook', () => {
  it.each([
    ['not JSON', '{"cells": ['],
    ['an array', '[]'],
    ['no nbformat', '{"cells": []}'],
    ['no cells array in nbformat 4', '{"nbformat": 4, "cells": {}}'],
  ])('says why for %s', (_name, text) => {
    const read = readNotebook(text, 'n.ipynb', {});
    expect(read.ok).toBe(false);
    if (!read.ok) expect(read.error).not.toBe('');
  });
});
