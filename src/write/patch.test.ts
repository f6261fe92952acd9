import { applyPatch, structuredPatch } from 'diff';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { oneLineHunk } from './one-line-hunk.js';
import { formatGitPatch, makePatch } from './patch.js';

const line = fc.constantFrom('a', 'b', 'c', '', 'a\r', 'x y');
const lines = fc.array(line, { maxLength: 30 });
const text = fc.tuple(lines, fc.boolean()).map(([ls, finalBreak]) => ls.join('\n') + (finalBreak && ls.length ? '\n' : ''));

describe('makePatch', () => {
  it('gives a patch that turns before into after, never smaller than the whole-file diff', () => {
    fc.assert(
      fc.property(text, text, fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 2 }), (before, after, context, margin) => {
        const full = structuredPatch('f', 'f', before, after, undefined, undefined, { context });
        const ours = makePatch('f', before, after, context, margin);
        expect(applyPatch(before, { ...full, hunks: ours.hunks }, { autoConvertLineEndings: false })).toBe(after);
        const count = (sign: string) => full.hunks.flatMap((h) => h.lines).filter((l) => l.startsWith(sign)).length;
        // Minimal unless the diff's time bound cut Myers short (a loaded machine): then one
        // whole-region hunk, which still changes the line count by the same amount.
        expect(ours.additions - ours.deletions).toBe(count('+') - count('-'));
        expect(ours.additions).toBeGreaterThanOrEqual(count('+'));
      }),
      { numRuns: 2000 },
    );
  });

  it('gives exactly the whole-file hunks for edits among distinct lines', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 400 }), fc.integer({ min: 0, max: 399 }), fc.boolean(), (n, at, finalBreak) => {
        const ls = Array.from({ length: n }, (_, i) => `line ${i} ${'x'.repeat(i % 40)}`);
        const before = ls.join('\n') + (finalBreak ? '\n' : '');
        const edited = [...ls];
        edited.splice(at % n, 1, `changed ${at}`, 'inserted');
        const after = edited.join('\n') + (finalBreak ? '\n' : '');
        expect(makePatch('f', before, after).hunks).toEqual(structuredPatch('f', 'f', before, after).hunks);
        expect(makePatch('f', before, after, 4, 0).hunks).toEqual(structuredPatch('f', 'f', before, after).hunks);
      }),
      { numRuns: 300 },
    );
  });

  it('makes the one-line hunk exactly as the diff package does, repeated lines and CRs included', () => {
    let direct = 0;
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 30 }),
        fc.nat(),
        line,
        fc.boolean(),
        fc.integer({ min: 0, max: 4 }),
        (ls, at, now, finalBreak, context) => {
          const edited = [...ls];
          edited[at % ls.length] = now;
          const before = ls.join('\n') + (finalBreak ? '\n' : '');
          const after = edited.join('\n') + (finalBreak ? '\n' : '');
          const full = structuredPatch('f', 'f', before, after, undefined, undefined, { context }).hunks;
          const one = oneLineHunk(before, after, context);
          if (one !== null) {
            direct += 1;
            expect([one]).toEqual(full);
            expect(makePatch('f', before, after, context).hunks).toEqual(full);
          }
        },
      ),
      { numRuns: 3000 },
    );
    // The property is not vacuous: many cases take the direct path.
    expect(direct).toBeGreaterThan(300);
  });

  it("answers a one-line change of a large file with the diff package's hunk, at file line numbers", () => {
    const ls = Array.from({ length: 2000 }, (_, i) => `line ${i}`);
    const before = `${ls.join('\n')}\n`;
    const after = before.replace('line 1500\n', 'changed\n');
    const ours = makePatch('f', before, after);
    expect(ours.hunks).toEqual(structuredPatch('f', 'f', before, after).hunks);
    expect(ours.hunks[0]).toMatchObject({ oldStart: 1497, oldLines: 9, newStart: 1497, newLines: 9 });
    expect([ours.additions, ours.deletions]).toEqual([1, 1]);
  });

  it('formats a git patch with /dev/null for a new file', () => {
    const { hunks } = makePatch('n.txt', '', 'a\n', 3);
    expect(formatGitPatch('n.txt', hunks, { before: true, after: false })).toBe(
      'diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+a\n',
    );
  });
});
