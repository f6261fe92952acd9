import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isToolError } from '../errors.js';
import type { NotebookEditRequest } from './edit.js';
import { mergeCellEdit } from './merge-cells.js';

type Cell = { id: string; source: string };

function notebook(cells: Cell[], withIds: boolean): string {
  const lines = cells.map(
    (c) => `  {"cell_type": "markdown", ${withIds ? `"id": "${c.id}", ` : ''}"metadata": {}, "source": ["${c.source}"]}`,
  );
  return `{"cells": [\n${lines.join(',\n')}\n ],\n "metadata": {}, "nbformat": 4, "nbformat_minor": ${withIds ? 5 : 4}}\n`;
}

const sources = (text: string) => (JSON.parse(text) as { cells: Array<{ source: string[] }> }).cells.map((c) => c.source.join(''));

/** Their change: each base cell kept, changed or deleted, and maybe a cell inserted after it. */
const theirChange = (n: number) =>
  fc.array(fc.record({ fate: fc.constantFrom('keep', 'keep', 'keep', 'change', 'delete'), insertAfter: fc.boolean() }), {
    minLength: n,
    maxLength: n,
  });

describe('merging a NotebookEdit by cell', () => {
  it('merges exactly when the cells and gaps ours needs are untouched, never losing a cell of theirs', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 3, max: 8 }).chain((n) =>
          fc.record({
            n: fc.constant(n),
            withIds: fc.boolean(),
            theirs: theirChange(n),
            mode: fc.constantFrom('replace', 'delete', 'insert', 'move'),
            target: fc.integer({ min: 0, max: n - 1 }),
            after: fc.integer({ min: -1, max: n - 1 }),
          }),
        ),
        ({ n, withIds, theirs, mode, target, after }) => {
          const base: Cell[] = Array.from({ length: n }, (_, i) => ({ id: `c${i}`, source: `b${i}` }));
          const their: Cell[] = [];
          theirs.forEach((t, i) => {
            if (t.fate === 'change') their.push({ id: `c${i}`, source: `t${i}` });
            if (t.fate === 'keep') their.push(base[i]!);
            if (t.insertAfter) their.push({ id: `n${i}`, source: `new${i}` });
          });
          const name = (i: number) => (withIds ? `c${i}` : `cell-${i}`);
          if (mode === 'move' && (after === target || after === target - 1)) return;
          const request: NotebookEditRequest =
            mode === 'replace'
              ? { editMode: 'replace', cellId: name(target), newSource: 'ours' }
              : mode === 'delete'
                ? { editMode: 'delete', cellId: name(target) }
                : mode === 'insert'
                  ? { editMode: 'insert', cellType: 'markdown', newSource: 'ours', ...(after >= 0 ? { cellId: name(after) } : {}) }
                  : { editMode: 'move', cellId: name(target), afterCellId: after < 0 ? '' : name(after) };
          const baseText = notebook(base, withIds);
          const theirText = notebook(their, withIds);
          // Ours needs a cell their change left byte-identical, or a gap between two such cells they inserted nothing into.
          const cellKept = (i: number) => i < 0 || i >= n || theirs[i]!.fate === 'keep';
          const gapKept = (i: number) => cellKept(i) && cellKept(i + 1) && !(i >= 0 && theirs[i]!.insertAfter);
          const conflict =
            mode === 'replace'
              ? !cellKept(target)
              : mode === 'insert'
                ? !gapKept(after)
                : !gapKept(target - 1) || !gapKept(target) || (mode === 'move' && !gapKept(after));
          let merged: string;
          try {
            merged = mergeCellEdit(baseText, theirText, request, 'n.ipynb', () => 'fresh').outcome.text;
          } catch (err) {
            if (!isToolError(err)) throw err;
            expect([err.code, conflict]).toEqual(['FILE_MODIFIED_SINCE_READ', true]);
            return;
          }
          expect(conflict).toBe(false);
          const got = sources(merged);
          const theirSources = their.map((c) => c.source);
          if (mode === 'replace') {
            expect(theirs[target]!.fate).toBe('keep');
            expect(got).toEqual(theirSources.map((s) => (s === `b${target}` ? 'ours' : s)));
          } else if (mode === 'delete') {
            expect(got).toEqual(theirSources.filter((s) => s !== `b${target}`));
          } else if (mode === 'insert') {
            const at = after < 0 ? 0 : theirSources.indexOf(`b${after}`) + 1;
            expect(got).toEqual([...theirSources.slice(0, at), 'ours', ...theirSources.slice(at)]);
          } else {
            const rest = theirSources.filter((s) => s !== `b${target}`);
            const at = after < 0 ? 0 : rest.indexOf(`b${after}`) + 1;
            expect(got).toEqual([...rest.slice(0, at), `b${target}`, ...rest.slice(at)]);
          }
        },
      ),
      { numRuns: 300, seed: 20261207 },
    );
  });

  it('merges a delete whatever the other writer did to cells beyond its neighbours, and says where their lines are', () => {
    const base: Cell[] = Array.from({ length: 6 }, (_, i) => ({ id: `c${i}`, source: `b${i}` }));
    const their = [base[0]!, { id: 'c1', source: 'changed' }, base[2]!, base[3]!, base[4]!, { id: 'x', source: 'new' }, base[5]!];
    const out = mergeCellEdit(notebook(base, true), notebook(their, true), { editMode: 'delete', cellId: 'c3' }, 'n.ipynb');
    expect(sources(out.outcome.text)).toEqual(['b0', 'changed', 'b2', 'b4', 'new', 'b5']);
    expect(out.merged.lines).toEqual([
      [3, 3],
      [6, 6],
    ]);
    expect(out.theirMoves).toEqual([
      { kind: 'delete', at: 1 },
      { kind: 'insert', at: 1, unseen: true },
      { kind: 'insert', at: 5, unseen: true },
    ]);
  });

  it('matches cells by value: a notebook saved again in another layout still merges, and keeps that layout', () => {
    const base: Cell[] = [
      { id: 'c0', source: 'b0' },
      { id: 'c1', source: 'b1' },
    ];
    const theirs =
      JSON.stringify(
        {
          cells: base.map((c) => ({ cell_type: 'markdown', id: c.id, metadata: {}, source: [c.source] })),
          metadata: {},
          nbformat: 4,
          nbformat_minor: 5,
        },
        null,
        1,
      ) + '\n';
    const changed = theirs.replace('"b0"', '"t0"');
    const out = mergeCellEdit(notebook(base, true), changed, { editMode: 'replace', cellId: 'c1', newSource: 'ours' }, 'n.ipynb');
    expect(out.outcome.text).toBe(changed.replace('"b1"', '"ours"'));
  });

  it('refuses rather than guess between two equal cells the other writer moved around', () => {
    // [X, S, Y, S, Z] became [X, Y, S, Q, Z]: Y moved up and the last S changed, or the first S moved
    // down and the last changed — which S the session was shown as cell-3 cannot be told.
    const base: Cell[] = ['X', 'S', 'Y', 'S', 'Z'].map((source, i) => ({ id: `c${i}`, source }));
    const their = ['X', 'Y', 'S', 'Q', 'Z'].map((source, i) => ({ id: `c${i}`, source }));
    const err = (() => {
      try {
        mergeCellEdit(
          notebook(base, false),
          notebook(their, false),
          { editMode: 'replace', cellId: 'cell-3', newSource: 'ours' },
          'n.ipynb',
        );
        return null;
      } catch (e) {
        return e;
      }
    })();
    expect(isToolError(err) && [err.code, err.details]).toMatchObject(['FILE_MODIFIED_SINCE_READ', { conflict: ['cell-3'] }]);
  });
});
