import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oneLineHunk } from './one-line-hunk.js';
import type { PatchHunk } from './whole-hunk.js';

/**
 * The first, split-based version, kept as the oracle: both texts split into lines, exactly one
 * index differing, neither line equal to a neighbour (patch.test.ts checks this one against the
 * diff package).
 */
function splitOneLineHunk(before: string, after: string, context: number): PatchHunk | null {
  if (!before.endsWith('\n') || !after.endsWith('\n')) return null;
  const a = before.slice(0, -1).split('\n');
  const b = after.slice(0, -1).split('\n');
  if (a.length !== b.length) return null;
  let at = -1;
  for (let i = 0; i < a.length; i += 1) {
    if (a[i] === b[i]) continue;
    if (at !== -1) return null;
    at = i;
  }
  if (at === -1) return null;
  const removed = a[at]!;
  const added = b[at]!;
  const around = [a[at - 1], a[at + 1]];
  if (around.includes(removed) || around.includes(added)) return null;
  const first = Math.max(0, at - context);
  const last = Math.min(a.length - 1, at + context);
  const lines = a.slice(first, at).map((l) => ` ${l}`);
  lines.push(`-${removed}`, `+${added}`);
  for (const l of a.slice(at + 1, last + 1)) lines.push(` ${l}`);
  const count = last - first + 1;
  return { oldStart: first + 1, oldLines: count, newStart: first + 1, newLines: count, lines };
}

const line = fc.constantFrom('a', 'b', 'c', '', 'a\r', 'x y', 'ab', 'b\n', '\r');
/** An edit of a line list: replace one, insert, delete, or replace a run. */
const edit = fc.oneof(
  { arbitrary: fc.tuple(fc.constant('replace' as const), fc.nat(), line), weight: 6 },
  fc.tuple(fc.constant('insert' as const), fc.nat(), line),
  fc.tuple(fc.constant('delete' as const), fc.nat(), line),
  fc.tuple(fc.constant('two' as const), fc.nat(), line),
);

describe('oneLineHunk', () => {
  it('answers exactly as the split-based version, for every kind of edit (null included)', () => {
    let direct = 0;
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 30 }),
        fc.array(edit, { minLength: 1, maxLength: 2 }),
        fc.boolean(),
        fc.nat(9),
        fc.integer({ min: 0, max: 5 }),
        (ls, edits, breakBefore, flip, context) => {
          // Mostly the same final break on both sides (the only case with a hunk).
          const breakAfter = flip === 0 ? !breakBefore : breakBefore;
          const edited = [...ls];
          for (const [kind, n, now] of edits) {
            const at = n % (edited.length + 1);
            if (kind === 'replace') edited[Math.min(at, edited.length - 1)] = now;
            else if (kind === 'insert') edited.splice(at, 0, now);
            else if (kind === 'delete') edited.splice(at, 1);
            else edited.splice(at, 2, now, now);
          }
          const before = ls.join('\n') + (breakBefore ? '\n' : '');
          const after = edited.join('\n') + (breakAfter ? '\n' : '');
          const ours = oneLineHunk(before, after, context);
          expect(ours).toEqual(splitOneLineHunk(before, after, context));
          if (ours !== null) direct += 1;
        },
      ),
      { numRuns: 10_000 },
    );
    // Not vacuous: many cases have a one-line hunk.
    expect(direct).toBeGreaterThan(1000);
  });

  it('cuts the hunk out of a large text at file line numbers', () => {
    const ls = Array.from({ length: 5000 }, (_, i) => `line ${i}`);
    const before = `${ls.join('\n')}\n`;
    const after = before.replace('line 4998\n', 'changed\n');
    expect(oneLineHunk(before, after, 3)).toEqual({
      oldStart: 4996,
      oldLines: 5,
      newStart: 4996,
      newLines: 5,
      lines: [' line 4995', ' line 4996', ' line 4997', '-line 4998', '+changed', ' line 4999'],
    });
    expect(oneLineHunk(before, before, 3)).toBeNull();
  });
});
