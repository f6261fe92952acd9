import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applySplices, findClosest, findEdit, LADDER_WORK, WorkBudget, type EditSearch } from '../src/match/index.js';
import { referenceLadder, type LadderOutcome } from './support/ladder-model.js';

/**
 * "Bounded work": the ladder and `closest` stay within their budgets for any
 * file and old text the contract allows (checked here up to 100,000 lines and 1,000 lines,
 * matched and not, on files made of a few repeated lines — the worst case for a window search),
 * and on small inputs answer exactly as the brute-force reference model does.
 */

// Lines drawn from a tiny alphabet, indented in tabs or spaces: windows repeat everywhere.
const WORDS = ['foo()', 'bar = 1', '}', '', 'if x {', 'return y', 'baz “q”', 'a – b'];
const INDENTS = ['', '\t', '\t\t', '    ', '  ', ' '];

const lineArb = fc.record({ word: fc.integer({ min: 0, max: WORDS.length - 1 }), indent: fc.integer({ min: 0, max: INDENTS.length - 1 }) });
const render = (l: { word: number; indent: number }) => INDENTS[l.indent]! + WORDS[l.word]!;

/** What findEdit answers, in the reference model's terms. */
function outcome(text: string, found: EditSearch): LadderOutcome {
  if (found.kind === 'ok') return { ok: true, text: applySplices(text, found.splices), rung: found.rung };
  if (found.kind === 'multiple') return { ok: false, code: 'MULTIPLE_MATCHES', rung: found.rung, lines: found.lines };
  return { ok: false, code: 'STRING_NOT_FOUND' };
}

// Generous: a shared CI machine. The budgets hold the work; this holds the wall time.
const CALL_BOUND_MS = 1500;

describe('the ladder is bounded', () => {
  it('on small inputs, answers exactly as the brute-force reference does', () => {
    fc.assert(
      fc.property(
        fc.array(lineArb, { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 0, max: 39 }),
        fc.integer({ min: 1, max: 6 }),
        fc.array(lineArb, { minLength: 0, maxLength: 6 }),
        fc.boolean(),
        fc.constantFrom('none', 'reindent', 'random'),
        (file, at, m, random, replaceAll, how) => {
          const lines = file.map(render);
          const text = `${lines.join('\n')}\n`;
          let old = lines.slice(at, at + m);
          if (how === 'reindent') old = old.map((l) => l.replace(/^\t/, '    '));
          if (how === 'random' || old.length === 0) old = random.map(render);
          const oldString = old.join('\n');
          if (oldString === '' || oldString === 'x') return;
          const found = findEdit({ text, oldString, newString: 'x', replaceAll, lineBreak: '\n' });
          expect(found.kind).not.toBe('budget');
          // Every first line is named on inputs this small, as the reference names them.
          expect(outcome(text, found)).toEqual(referenceLadder(text, oldString, 'x', replaceAll));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('files up to 100,000 lines and old texts up to 1,000 lines: within budget, matched or not', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1000, max: 100_000 }),
        fc.integer({ min: 1, max: 1000 }),
        fc.array(lineArb, { minLength: 1, maxLength: 8 }),
        fc.constantFrom('in-file', 'last-differs', 'reindented', 'uneven'),
        fc.boolean(),
        (n, m, period, how, replaceAll) => {
          const block = period.map(render);
          const lines = Array.from({ length: n }, (_, i) => block[i % block.length]!);
          const text = `${lines.join('\n')}\n`;
          let old = lines.slice(n - m);
          if (how === 'last-differs') old[old.length - 1] = 'not in the file';
          if (how === 'reindented') old = old.map((l) => l.replace(/^\t/, '    '));
          if (how === 'uneven') old = old.map((l, k) => (k % 2 ? `      ${l.trim()}` : `    ${l.trim()}`));
          const oldString = old.join('\n');
          const budget = new WorkBudget(LADDER_WORK);
          const started = performance.now();
          const found = findEdit({ text, oldString, newString: 'x', replaceAll, lineBreak: '\n', budget });
          const closest = found.kind === 'none' ? findClosest(text, oldString) : null;
          const ms = performance.now() - started;
          expect(ms).toBeLessThan(CALL_BOUND_MS);
          expect(budget.spent).toBeLessThanOrEqual(LADDER_WORK + m * 3);
          // Old text copied from the file is always found (once, several times, or the search stops).
          if (how === 'in-file') expect(['ok', 'multiple']).toContain(found.kind);
          if (closest) expect(closest.end_line - closest.start_line).toBeLessThan(m);
        },
      ),
      { numRuns: 12 },
    );
  }, 120_000);
});
