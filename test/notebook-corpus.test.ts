/**
 * Every nbformat 4 notebook of the corpus survives a code-cell
 * replace, a markdown-cell replace, an insert after a middle cell and a delete: schema-valid when
 * it was, untouched cells and top-level metadata deep-equal, text outside the edited cell
 * byte-identical; and parse → serialize without an edit is byte-identical.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openNotebook } from '../src/notebook/document.js';
import { editNotebook, type NotebookEditRequest } from '../src/notebook/edit.js';
import { CELL_ID_PATTERN } from '../src/notebook/cell-ids.js';
import { CORPUS, corpusNames, itCorpus } from './support/corpus.js';

// ajv-draft-04 is CommonJS whose module.exports is the class; NodeNext types see a namespace.
const Ajv = createRequire(import.meta.url)('ajv-draft-04') as typeof import('ajv-draft-04').default;
const corpus = CORPUS;
const schemas = path.join(corpus, 'nbformat/schemas');
const ajv = new Ajv({ strict: false });
const validators = new Map<string, ReturnType<typeof ajv.compile>>();

type Json = Record<string, any>;

function validatorFor(nb: Json) {
  const minor = typeof nb.nbformat_minor === 'number' ? nb.nbformat_minor : 0;
  const file = minor <= 5 ? `nbformat.v4.${minor}.schema.json` : 'nbformat.v4.schema.json';
  let validate = validators.get(file);
  if (validate === undefined) {
    validate = ajv.compile(JSON.parse(readFileSync(path.join(schemas, file), 'utf8')));
    validators.set(file, validate);
  }
  return validate;
}

const all = ['notebooks', 'nbformat/tests'].flatMap((dir) =>
  corpusNames(dir)
    .filter((name) => name.endsWith('.ipynb'))
    .map((name) => `${dir}/${name}`),
);
const texts = new Map(all.map((rel) => [rel, readFileSync(path.join(corpus, rel), 'utf8')]));
const v4 = all.filter((rel) => JSON.parse(texts.get(rel) as string).nbformat === 4);
const v3 = all.filter((rel) => JSON.parse(texts.get(rel) as string).nbformat < 4);

/** What json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n" writes. */
function jupyterDump(value: unknown): string {
  const sort = (x: unknown): unknown =>
    Array.isArray(x)
      ? x.map(sort)
      : x !== null && typeof x === 'object'
        ? Object.fromEntries(
            Object.keys(x)
              .sort()
              .map((k) => [k, sort((x as Json)[k])]),
          )
        : x;
  return JSON.stringify(sort(value), null, 1) + '\n';
}

/** Each cell's exact text in the original, checked against the parsed cell. */
function cellTexts(text: string): string[] {
  const doc = openNotebook(text);
  return (doc.cellsNode.items ?? []).map((span, i) => {
    const slice = text.slice(span.start, span.end);
    expect(JSON.parse(slice)).toEqual(doc.cells[i]);
    return slice;
  });
}

let counter = 0;
const makeId = () => `new-${++counter}`;

interface Case {
  name: string;
  request: NotebookEditRequest;
  /** Index of the touched cell in the original (for insert: the anchor). */
  index: number;
  kind: 'replace' | 'insert' | 'delete';
}

function casesFor(nb: Json): Case[] {
  const cells = nb.cells as Json[];
  const id = (i: number) => (typeof cells[i]?.id === 'string' ? cells[i]?.id : `cell-${i}`);
  const middle = Math.floor((cells.length - 1) / 2);
  const code = cells.findIndex((c, i) => c.cell_type === 'code' && i >= middle);
  const anyCode = code >= 0 ? code : cells.findIndex((c) => c.cell_type === 'code');
  const markdown = cells.findIndex((c) => c.cell_type === 'markdown');
  const out: Case[] = [];
  if (anyCode >= 0) {
    out.push({
      name: 'replace a code cell',
      kind: 'replace',
      index: anyCode,
      request: { cellId: id(anyCode), newSource: 'total = sum(range(10))\nprint(total)', editMode: 'replace' },
    });
  }
  if (markdown >= 0) {
    out.push({
      name: 'replace a markdown cell',
      kind: 'replace',
      index: markdown,
      request: { cellId: id(markdown), newSource: '## Résumé — 概要\n\nNew *text*.\n', editMode: 'replace' },
    });
  }
  if (cells.length > 0) {
    out.push({
      name: 'insert after a middle cell',
      kind: 'insert',
      index: middle,
      request: { cellId: id(middle), newSource: 'import os\nos.getcwd()', cellType: 'code', editMode: 'insert' },
    });
    out.push({ name: 'delete a cell', kind: 'delete', index: middle, request: { cellId: id(middle), newSource: '', editMode: 'delete' } });
  }
  return out;
}

function expectUntouched(original: Json, edited: Json, c: Case): void {
  const { cells: before, ...restBefore } = original;
  const { cells: after, ...restAfter } = edited;
  expect(restAfter).toEqual(restBefore); // metadata, nbformat, nbformat_minor, anything else
  const expected = [...(before as Json[])];
  const got = [...(after as Json[])];
  if (c.kind === 'replace') {
    expected.splice(c.index, 1);
    got.splice(c.index, 1);
  } else if (c.kind === 'insert') {
    got.splice(c.index + 1, 1);
  } else {
    expected.splice(c.index, 1);
  }
  expect(got).toEqual(expected);
}

function expectOnlyCellTextChanged(text: string, result: string, c: Case): void {
  const cells = cellTexts(text);
  const spans = openNotebook(text).cellsNode.items ?? [];
  const span = spans[c.index];
  if (span === undefined) throw new Error('no span');
  if (c.kind === 'replace') {
    expect(result.startsWith(text.slice(0, span.start))).toBe(true);
    expect(result.endsWith(text.slice(span.end))).toBe(true);
  } else if (c.kind === 'insert') {
    expect(result.startsWith(text.slice(0, span.end))).toBe(true);
    expect(result.endsWith(text.slice(span.end))).toBe(true);
  } else {
    // The cell goes with one separator: the comma after it, or before it when it was last.
    const head = text.slice(0, span.start);
    const tail = text.slice(span.end);
    const candidates = [
      head + tail.replace(/^\s*,\s*/, ''),
      head.replace(/\s*,\s*$/, '') + tail,
      head.replace(/\s*$/, '') + tail.replace(/^\s*/, ''),
    ];
    expect(candidates).toContain(result);
    expect(cells).toHaveLength(spans.length);
  }
}

itCorpus('finds nbformat 4 and nbformat 3 notebooks in the corpus', () => {
  expect([v4.length > 0, v3.length > 0]).toEqual([true, true]);
});

describe.each(v4)('NotebookEdit on %s', (rel) => {
  const text = texts.get(rel) as string;
  const original = JSON.parse(text) as Json;
  const validate = validatorFor(original);
  const wasValid = validate(original) as boolean;
  const savedByJupyter = jupyterDump(original) === text;

  it('parses and serializes without an edit byte-identically', () => {
    const doc = openNotebook(text);
    expect(doc.bom + doc.text).toBe(text);
  });

  it.each(casesFor(original))("$name: valid, untouched cells equal, only that cell's text changed", (c) => {
    const outcome = editNotebook(text, c.request, makeId);
    const edited = JSON.parse(outcome.text) as Json;
    if (wasValid) expect(validate(edited), JSON.stringify(validate.errors)).toBe(true);
    expectUntouched(original, edited, c);
    expectOnlyCellTextChanged(text, outcome.text, c);
    if (savedByJupyter) expect(outcome.text).toBe(jupyterDump(edited));
    const idsOf = (nb: Json) => (nb.cells as Json[]).map((cell) => cell.id).filter((id) => id !== undefined);
    const duplicates = (ids: unknown[]) => ids.length - new Set(ids).size;
    // No edit adds a duplicate id (a delete may remove one).
    expect(duplicates(idsOf(edited))).toBeLessThanOrEqual(duplicates(idsOf(original)));
    if (c.kind === 'insert') {
      const added = (edited.cells as Json[])[c.index + 1] as Json;
      const hasIds = original.nbformat_minor >= 5;
      expect(added.id === undefined).toBe(!hasIds);
      if (hasIds) expect(added.id).toMatch(CELL_ID_PATTERN);
      expect(added).toMatchObject({ cell_type: 'code', execution_count: null, outputs: [], metadata: {} });
    }
  });

  it('keeps CRLF line endings when the notebook has them', () => {
    const crlf = text.replace(/\n/g, '\r\n');
    const [c] = casesFor(original);
    if (c === undefined) return;
    let n = 0;
    const lf = editNotebook(text, c.request, () => `id-${++n}`);
    n = 0;
    const out = editNotebook(crlf, c.request, () => `id-${++n}`);
    expect(out.text).toBe(lf.text.replace(/\n/g, '\r\n'));
    expect(out.text).not.toMatch(/[^\r]\n/);
  });
});

describe.each(v3)('NotebookEdit on nbformat < 4: %s', (rel) => {
  it('refuses with INVALID_NOTEBOOK', () => {
    const request: NotebookEditRequest = { cellId: 'cell-0', newSource: 'x', editMode: 'replace' };
    expect(() => editNotebook(texts.get(rel) as string, request)).toThrow(expect.objectContaining({ code: 'INVALID_NOTEBOOK' }));
  });
});
