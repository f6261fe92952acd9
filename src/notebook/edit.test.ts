import { describe, expect, it } from 'vitest';
import { editNotebook, type NotebookEditRequest } from './edit.js';
import { scanJson } from './json-scan.js';
import { splitSourceLines } from './stringify.js';

type Json = Record<string, any>;

function nb(cells: unknown[], minor = 5, extra: Json = {}): Json {
  return { cells, metadata: { language_info: { name: 'python' } }, nbformat: 4, nbformat_minor: minor, ...extra };
}
const jupyter = (value: unknown) => JSON.stringify(value, null, 1) + '\n';
const code = (id: string, source: unknown, more: Json = {}) => ({
  cell_type: 'code',
  execution_count: 1,
  id,
  metadata: {},
  outputs: [{ name: 'stdout', output_type: 'stream', text: ['x\n'] }],
  source,
  ...more,
});
const md = (id: string, source: unknown) => ({ cell_type: 'markdown', id, metadata: {}, source });

const replace = (cellId: string, newSource: string, more: Partial<NotebookEditRequest> = {}): NotebookEditRequest => ({
  cellId,
  newSource,
  editMode: 'replace',
  ...more,
});
let n = 0;
const ids = () => `fresh${++n}`;

describe('cell lookup', () => {
  it('finds a cell by its id before reading cell-N as an index', () => {
    const text = jupyter(nb([md('x', ['first']), md('cell-0', ['second'])]));
    const out = JSON.parse(editNotebook(text, replace('cell-0', 'new')).text);
    expect(out.cells[1].source).toEqual(['new']);
    expect(out.cells[0].source).toEqual(['first']);
  });

  it('addresses cells by cell-N in a notebook without ids, and reports cell-N', () => {
    const text = jupyter(nb([{ cell_type: 'markdown', metadata: {}, source: 'a' }], 1));
    const out = editNotebook(text, replace('cell-0', 'b'));
    expect(out.cellId).toBe('cell-0');
    expect(JSON.parse(out.text).cells[0]).toEqual({ cell_type: 'markdown', metadata: {}, source: 'b' });
  });

  it('answers CELL_NOT_FOUND for an index past the end, except replace at the end', () => {
    const text = jupyter(nb([md('a', ['A'])]));
    const fail = (req: NotebookEditRequest) => () => editNotebook(text, req);
    expect(fail(replace('cell-2', 'x'))).toThrow(expect.objectContaining({ code: 'CELL_NOT_FOUND' }));
    expect(fail({ cellId: 'cell-1', newSource: '', editMode: 'delete' })).toThrow(expect.objectContaining({ code: 'CELL_NOT_FOUND' }));
    expect(fail({ cellId: 'cell-1', newSource: '', editMode: 'insert', cellType: 'code' })).toThrow(
      expect.objectContaining({ code: 'CELL_NOT_FOUND' }),
    );
    expect(editNotebook(text, replace('cell-1', 'x'), ids).editMode).toBe('insert');
  });
});

describe('replace', () => {
  it('converts markdown to code: adds execution_count null and outputs [], drops attachments', () => {
    const cell = { attachments: { 'a.png': { 'image/png': 'AA==' } }, cell_type: 'markdown', id: 'm', metadata: {}, source: ['x'] };
    const out = editNotebook(jupyter(nb([cell])), replace('m', 'y = 1', { cellType: 'code' }));
    expect(out.text).toBe(
      jupyter(nb([{ cell_type: 'code', execution_count: null, id: 'm', metadata: {}, outputs: [], source: ['y = 1'] }])),
    );
    expect(out.cellType).toBe('code');
  });

  it('converts code to markdown: no outputs, no execution_count', () => {
    const out = editNotebook(jupyter(nb([code('c', ['x'])])), replace('c', '# T', { cellType: 'markdown' }));
    expect(out.text).toBe(jupyter(nb([md('c', ['# T'])])));
  });

  it('keeps a string source a string, and a list of lines a list', () => {
    const text = jupyter(nb([md('s', 'one'), md('l', ['one'])]));
    const out = JSON.parse(editNotebook(editNotebook(text, replace('s', 'a\nb')).text, replace('l', 'a\nb')).text);
    expect(out.cells[0].source).toBe('a\nb');
    expect(out.cells[1].source).toEqual(['a\n', 'b']);
  });

  it("keeps the cell's own metadata and id text as they were", () => {
    const cell = code('c', ['x'], { metadata: { tags: ['keep'], scrolled: true } });
    const out = JSON.parse(editNotebook(jupyter(nb([cell])), replace('c', 'y')).text);
    expect(out.cells[0].metadata).toEqual({ tags: ['keep'], scrolled: true });
  });
});

describe('insert and delete', () => {
  it('gives a new cell an id only from nbformat 4.5 on', () => {
    const insert: NotebookEditRequest = { newSource: 'x', cellType: 'markdown', editMode: 'insert' };
    const v44 = JSON.parse(editNotebook(jupyter(nb([], 4)), insert, ids).text);
    expect(v44.cells[0]).toEqual({ cell_type: 'markdown', metadata: {}, source: ['x'] });
    const v45 = JSON.parse(editNotebook(jupyter(nb([])), insert, () => 'abc').text);
    expect(v45.cells[0]).toEqual({ cell_type: 'markdown', id: 'abc', metadata: {}, source: ['x'] });
  });

  it('never reuses an id the notebook has', () => {
    const made = ['a', 'b'];
    const out = editNotebook(
      jupyter(nb([md('a', ['A'])])),
      { cellId: 'a', newSource: '', cellType: 'code', editMode: 'insert' },
      () => made.shift() ?? 'z',
    );
    expect(out.cellId).toBe('b');
  });

  it('fills an empty cells list the way Jupyter lays it out, and empties it again', () => {
    const empty = jupyter(nb([]));
    const inserted = editNotebook(empty, { newSource: 'x', cellType: 'code', editMode: 'insert' }, () => 'id1');
    const cell = { cell_type: 'code', execution_count: null, id: 'id1', metadata: {}, outputs: [], source: ['x'] };
    expect(inserted.text).toBe(jupyter(nb([cell])));
    const deleted = editNotebook(inserted.text, { cellId: 'id1', newSource: '', editMode: 'delete' });
    expect(deleted.text).toBe(empty);
    expect(deleted.totalCells).toBe(0);
  });

  it('deletes the last cell without leaving a comma', () => {
    const out = editNotebook(jupyter(nb([md('a', ['A']), md('b', ['B'])])), { cellId: 'b', newSource: '', editMode: 'delete' });
    expect(out.text).toBe(jupyter(nb([md('a', ['A'])])));
  });
});

describe("layouts other than Jupyter's", () => {
  it('keeps a 2-space, unsorted notebook: key order, indentation, no trailing newline', () => {
    const cells = [
      { id: 'a', cell_type: 'markdown', source: 'A', metadata: {} },
      { id: 'b', cell_type: 'markdown', source: 'B', metadata: {} },
    ];
    const text = JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata: {}, cells }, null, 2);
    const replaced = editNotebook(text, replace('a', 'Z'));
    expect(replaced.text).toBe(text.replace('"source": "A"', '"source": "Z"'));
    const inserted = editNotebook(text, { cellId: 'a', newSource: 'N', cellType: 'markdown', editMode: 'insert' }, () => 'n1');
    const expected = {
      nbformat: 4,
      nbformat_minor: 5,
      metadata: {},
      cells: [cells[0], { id: 'n1', cell_type: 'markdown', source: 'N', metadata: {} }, cells[1]],
    };
    expect(inserted.text).toBe(JSON.stringify(expected, null, 2));
  });

  it('keeps a tab-indented notebook tab-indented', () => {
    const text = JSON.stringify(nb([md('a', ['A'])]), null, '\t') + '\n';
    const out = editNotebook(text, replace('a', 'B'));
    expect(out.text).toBe(JSON.stringify(nb([md('a', ['B'])]), null, '\t') + '\n');
  });

  it('writes non-ASCII as \\uXXXX in a notebook saved with ensure_ascii', () => {
    const text = jupyter(nb([md('a', ['caf\u00e9'])])).replace('é', '\\u00e9');
    const out = editNotebook(text, replace('a', 'naïve — 概要'));
    // eslint-disable-next-line no-control-regex -- the ASCII range starts at U+0000 on purpose
    expect(out.text).toContain('"naïve — 概要"'.replace(/[^\x00-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
    expect(JSON.parse(out.text).cells[0].source).toEqual(['naïve — 概要']);
  });

  it('edits a minified notebook in place: only the source value changes', () => {
    const text =
      '{"cells":[{"cell_type":"markdown","id":"a","metadata":{"v":1.0,"e":"\\u00e9"},"source":"A"},' +
      '{"cell_type":"markdown","id":"b","metadata":{},"source":"B"}],"metadata":{"x":1e5},"nbformat":4,"nbformat_minor":5}';
    const out = editNotebook(text, replace('b', 'C'));
    expect(out.text).toBe(text.replace('"source":"B"', '"source":"C"'));
  });

  it('keeps mixed line endings outside the cell, and writes the dominant one inside it', () => {
    const lf = jupyter(nb([md('a', ['A']), md('b', ['B'])]));
    const cut = lf.indexOf('  {', lf.indexOf('"id": "a"'));
    const mixed = lf.slice(0, cut).replace(/\n/g, '\r\n') + lf.slice(cut); // CRLF up to cell b, LF from there
    const out = editNotebook(mixed, replace('b', 'C'));
    expect(out.text).toBe(mixed.replace('"B"', '"C"'));
  });

  it('keeps the bytes of the source lines an edit leaves alone, escapes included', () => {
    const text = jupyter(nb([md('a', ['é']), code('b', ['caf\u00e9\n', 'x = 1\n', 'y = "\u00e9"'])])).replace(
      /"caf\u00e9\\n"/,
      '"caf\\u00e9\\n"',
    );
    expect(text).toContain('"caf\\u00e9\\n"');
    const out = editNotebook(text, { editMode: 'edit', cellId: 'b', oldString: 'x = 1', newString: 'x = 2' });
    expect(out.text).toContain('"caf\\u00e9\\n",\n    "x = 2\\n",\n    "y = \\"é\\""');
    expect(JSON.parse(out.text).cells[1].source).toEqual(['caf\u00e9\n', 'x = 2\n', 'y = "\u00e9"']);
  });

  it('keeps a BOM in front', () => {
    const out = editNotebook('\ufeff' + jupyter(nb([md('a', ['A'])])), replace('a', 'B'));
    expect(out.text).toBe('\ufeff' + jupyter(nb([md('a', ['B'])])));
  });
});

describe('building blocks', () => {
  it("splits source lines as Python's splitlines(keepends=True) does", () => {
    expect(splitSourceLines('a\nb\r\nc\rd\u2028e\n')).toEqual(['a\n', 'b\r\n', 'c\r', 'd\u2028', 'e\n']);
    expect(splitSourceLines('')).toEqual([]);
  });

  it('scans strings with escaped quotes and backslashes', () => {
    const text = '{"a": "x\\"y\\\\", "b": [1, {"c": "\\\\\\""}], "d": null}';
    const root = scanJson(text, 1);
    expect(root.members?.map((m) => [m.key, text.slice(m.value.start, m.value.end)])).toEqual([
      ['a', '"x\\"y\\\\"'],
      ['b', '[1, {"c": "\\\\\\""}]'],
      ['d', 'null'],
    ]);
  });
});
