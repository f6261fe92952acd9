/**
 * Fuzzing the notebook serializer: on every nbformat 4 notebook of the corpus,
 * random sequences of random cell edits (replace, insert, delete, type conversions, tricky
 * sources) always give JSON that validates against the nbformat schema (ajv-draft-04) when the
 * original did, whose cells are exactly what says, with unique ids, in a layout the
 * serializer recognizes again (reopening is byte-identical). Seeded and time-bounded.
 * Parse → serialize without an edit is proved byte-identical by test/notebook-corpus.test.ts.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { CELL_ID_PATTERN } from '../src/notebook/cell-ids.js';
import { openNotebook } from '../src/notebook/document.js';
import { editNotebook, type NotebookEditRequest } from '../src/notebook/edit.js';
import { TEST_SEED } from './support/seeded.js';
import { CORPUS, corpusNames, describeCorpus } from './support/corpus.js';

// ajv-draft-04 is CommonJS whose module.exports is the class; NodeNext types see a namespace.
const Ajv = createRequire(import.meta.url)('ajv-draft-04') as typeof import('ajv-draft-04').default;
const ajv = new Ajv({ strict: false });
const validators = new Map<string, ReturnType<typeof ajv.compile>>();

type Json = Record<string, any>;

function validatorFor(nb: Json) {
  const minor = typeof nb.nbformat_minor === 'number' ? nb.nbformat_minor : 0;
  const file = minor <= 5 ? `nbformat.v4.${minor}.schema.json` : 'nbformat.v4.schema.json';
  let validate = validators.get(file);
  if (!validate) {
    validate = ajv.compile(JSON.parse(readFileSync(path.join(CORPUS, 'nbformat/schemas', file), 'utf8')));
    validators.set(file, validate);
  }
  return validate;
}

const notebooks = ['notebooks', 'nbformat/tests']
  .flatMap((dir) =>
    corpusNames(dir)
      .filter((n) => n.endsWith('.ipynb'))
      .map((n) => `${dir}/${n}`),
  )
  .map((rel) => ({ rel, text: readFileSync(path.join(CORPUS, rel), 'utf8') }))
  .filter(({ text }) => (JSON.parse(text) as Json).nbformat === 4);

const tricky = fc.string({
  unit: fc.constantFrom(
    'a',
    'Z',
    ' ',
    '"',
    '\\',
    '/',
    '{',
    '}',
    '[',
    ']',
    ',',
    ':',
    '\n',
    '\r\n',
    '\t',
    'é',
    '概',
    '😀',
    '\u2028',
    '\u0000',
    '\u001f',
    '$&',
    '</script>',
  ),
  maxLength: 20,
});

interface EditStep {
  mode: 'replace' | 'insert' | 'delete';
  /** Which cell, as a fraction of the cell count (the count changes as steps apply). */
  at: number;
  byIndex: boolean;
  noId: boolean;
  source: string;
  cellType: 'code' | 'markdown' | undefined;
}

const stepArb: fc.Arbitrary<EditStep> = fc.record({
  mode: fc.constantFrom('replace', 'insert', 'delete'),
  at: fc.double({ min: 0, max: 1, noNaN: true }),
  byIndex: fc.boolean(),
  noId: fc.boolean(),
  source: tricky,
  cellType: fc.option(fc.constantFrom('code' as const, 'markdown' as const), { nil: undefined }),
});

/** Marks a cell the edit creates in the expected cells (its random id is checked apart). */
const NEW = Symbol('new cell');

const joined = (source: unknown) => (Array.isArray(source) ? source.join('') : source);

/** The request for a step on `nb`, and the cells the contract says result (new ids left open). */
function apply(nb: Json, step: EditStep): { request: NotebookEditRequest; cells: Json[] } {
  const cells = structuredClone(nb.cells) as Json[];
  const n = cells.length;
  // A replace at index == number of cells becomes an insert at the end.
  const picked = step.mode === 'replace' ? Math.min(n, Math.floor(step.at * (n + 1))) : Math.min(n - 1, Math.floor(step.at * n));
  const cellId = step.byIndex || typeof cells[picked]?.id !== 'string' ? `cell-${picked}` : (cells[picked]!.id as string);
  // The first cell with that id; failing that, cell-N is index N.
  const byId = cells.findIndex((c) => c.id === cellId);
  const index = byId >= 0 ? byId : picked;
  const topInsert = step.mode === 'insert' && (step.noId || n === 0);
  const request: NotebookEditRequest = {
    ...(topInsert ? {} : { cellId }),
    newSource: step.source,
    editMode: step.mode,
    cellType: step.mode === 'insert' ? (step.cellType ?? 'code') : step.cellType,
  };
  const fresh = (type: string): Json => ({
    [NEW]: true,
    cell_type: type,
    metadata: {},
    source: step.source,
    ...(type === 'code' ? { execution_count: null, outputs: [] } : {}),
  });
  if (step.mode === 'delete') cells.splice(index, 1);
  else if (step.mode === 'insert') cells.splice(topInsert ? 0 : index + 1, 0, fresh(request.cellType!));
  else if (index === n) cells.push(fresh(step.cellType ?? 'code'));
  else {
    const cell = cells[index]!;
    const type = step.cellType ?? cell.cell_type;
    cell.source = step.source;
    cell.cell_type = type;
    if (type === 'code') Object.assign(cell, { execution_count: null, outputs: [] });
    // A code cell has no attachments in any nbformat 4 schema: a converted cell drops them.
    if (type === 'code' && step.cellType !== undefined) delete cell.attachments;
    else if (step.cellType !== undefined) {
      delete cell.execution_count;
      delete cell.outputs;
    }
  }
  return { request, cells };
}

/** Compares cells with sources joined and a new cell's id checked apart (it is random). */
function expectCells(got: Json[], expected: Json[], hasIds: boolean): void {
  expect(got.length).toBe(expected.length);
  got.forEach((cell, i) => {
    const want: Json = { ...expected[i]!, source: joined(expected[i]!.source) };
    const have: Json = { ...cell, source: joined(cell.source) };
    if (want[NEW as unknown as string]) {
      // A new cell gets a fresh id when nbformat >= 4.5, and none before.
      if (hasIds) expect(have.id).toMatch(CELL_ID_PATTERN);
      else expect(have.id).toBeUndefined();
      delete have.id;
      delete want[NEW as unknown as string];
    }
    expect(have).toEqual(want);
  });
}

describeCorpus('the notebook serializer under random cell edits', () => {
  it('gives schema-valid notebooks with exactly the expected cells, unique ids, in a layout it recognizes again', () => {
    fc.assert(
      fc.property(fc.constantFrom(...notebooks), fc.array(stepArb, { minLength: 1, maxLength: 5 }), ({ rel, text: original }, steps) => {
        let text = original;
        let nb = JSON.parse(text) as Json;
        const validate = validatorFor(nb);
        const wasValid = validate(nb) as boolean;
        const hasIds = nb.nbformat_minor >= 5;
        const idsUnique = (cells: Json[]) => {
          const ids = cells.map((c) => c.id).filter((id) => id !== undefined);
          return new Set(ids).size === ids.length;
        };
        const uniqueBefore = idsUnique(nb.cells);
        for (const step of steps) {
          if (step.mode !== 'insert' && (nb.cells as Json[]).length === 0) continue;
          const { request, cells } = apply(nb, step);
          const out = editNotebook(text, request);
          const edited = JSON.parse(out.text) as Json;
          expectCells(edited.cells, cells, hasIds);
          const { cells: _a, ...restBefore } = nb;
          const { cells: _b, ...restAfter } = edited;
          expect(restAfter, rel).toEqual(restBefore);
          if (wasValid) expect(validate(edited), `${rel}: ${JSON.stringify(validate.errors)}`).toBe(true);
          if (uniqueBefore) expect(idsUnique(edited.cells)).toBe(true);
          // Reopening the result changes nothing.
          const reopened = openNotebook(out.text);
          expect(reopened.bom + reopened.text).toBe(out.text);
          text = out.text;
          nb = edited;
        }
      }),
      { seed: TEST_SEED, numRuns: 300, interruptAfterTimeLimit: 6_000 },
    );
  });
});
