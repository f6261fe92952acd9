import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { editNotebook, type NotebookEditRequest } from './edit.js';
import { splitSourceLines } from './stringify.js';

type Json = Record<string, any>;

interface Layout {
  unit: string;
  eol: string;
  final: string;
}
const JUPYTER: Layout = { unit: ' ', eol: '\n', final: '\n' };

/**
 * json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n" (Jupyter's writer) for the
 * default layout; other indent units, line breaks and endings for the others.
 */
function jupyterDump(value: unknown, layout: Layout = JUPYTER): string {
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
  // Raw line breaks only occur between tokens (inside strings they are escaped).
  return JSON.stringify(sort(value), null, layout.unit).replace(/\n/g, layout.eol) + layout.final;
}

const layoutArb = fc.record({
  unit: fc.constantFrom(' ', '  ', '    ', '\t'),
  eol: fc.constantFrom('\n', '\r\n'),
  final: fc.constantFrom('\n', '', '\r\n'),
});

// Strings that stress the scanner: quotes, backslashes, brackets, commas, non-ASCII, line breaks.
const tricky = fc.string({
  unit: fc.constantFrom('a', ' ', '"', '\\', '{', '}', '[', ']', ',', ':', '\n', '\r', 'é', '概', '😀', '\t', '\u2028'),
  maxLength: 12,
});
const source = fc.oneof(tricky, fc.array(tricky, { maxLength: 3 }));
const metadata = fc.dictionary(fc.constantFrom('tags', 'x"y', 'z\\', 'n'), fc.oneof(tricky, fc.integer(), fc.constant(null)), {
  maxKeys: 2,
});

const cellArb = () =>
  fc.record({
    kind: fc.constantFrom('code', 'markdown'),
    source,
    metadata,
    out: tricky,
  });

function buildNotebook(cells: Array<{ kind: string; source: unknown; metadata: Json; out: string }>, withId: boolean): Json {
  return {
    cells: cells.map((c, i) => ({
      cell_type: c.kind,
      ...(withId ? { id: `id${i}` } : {}),
      metadata: c.metadata,
      source: c.source,
      ...(c.kind === 'code' ? { execution_count: i, outputs: [{ name: 'stdout', output_type: 'stream', text: [c.out] }] } : {}),
    })),
    metadata: { language_info: { name: 'python' } },
    nbformat: 4,
    nbformat_minor: withId ? 5 : 4,
  };
}

/** What the notebook should be after the edit, by plain object manipulation. */
function expected(nb: Json, req: NotebookEditRequest, index: number, newId: string): Json {
  const out = structuredClone(nb);
  const cells = out.cells as Json[];
  if (req.editMode === 'delete') {
    cells.splice(index, 1);
    return out;
  }
  if (req.editMode === 'insert') {
    const cell: Json = { cell_type: req.cellType, metadata: {}, source: splitSourceLines(req.newSource ?? '') };
    if (nb.nbformat_minor >= 5) cell.id = newId;
    if (req.cellType === 'code') Object.assign(cell, { execution_count: null, outputs: [] });
    const template = cells[index] ?? cells[index + 1];
    if (template !== undefined && typeof template.source === 'string') cell.source = req.newSource;
    cells.splice(index + 1, 0, cell);
    return out;
  }
  const cell = cells[index] as Json;
  cell.source = typeof cell.source === 'string' ? req.newSource : splitSourceLines(req.newSource ?? '');
  const type = req.cellType ?? cell.cell_type;
  cell.cell_type = type;
  if (type === 'code') Object.assign(cell, { execution_count: null, outputs: [] });
  else {
    delete cell.execution_count;
    delete cell.outputs;
  }
  return out;
}

describe('editNotebook on generated Jupyter notebooks', () => {
  it("writes exactly what Jupyter would write for the edited notebook, in the file's own layout", () => {
    fc.assert(
      fc.property(
        layoutArb,
        fc.boolean(),
        fc.array(cellArb(), { minLength: 1, maxLength: 5 }),
        fc.constantFrom<NotebookEditRequest['editMode']>('replace', 'insert', 'delete'),
        fc.nat(),
        tricky,
        fc.option(fc.constantFrom<'code' | 'markdown'>('code', 'markdown'), { nil: undefined }),
        (layout, withId, cells, editMode, at, newSource, cellType) => {
          const nb = buildNotebook(cells, withId);
          const index = at % cells.length;
          const cellId = withId ? `id${index}` : `cell-${index}`;
          const request: NotebookEditRequest = {
            cellId,
            newSource,
            editMode,
            cellType: editMode === 'insert' ? (cellType ?? 'code') : cellType,
          };
          const out = editNotebook(jupyterDump(nb, layout), request, () => 'fresh');
          expect(out.text).toBe(jupyterDump(expected(nb, request, index, 'fresh'), layout));
        },
      ),
      { numRuns: 400, seed: 20261130 },
    );
  });
});
