import { promises as fsp, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isToolError } from '../src/errors.js';
import { editInput } from '../src/tools/edit/schema.js';
import { runEdit } from '../src/tools/edit/run.js';
import { makeWriteTestbed, type WriteTestbed } from './support/test-context.js';
import { CORPUS, describeCorpus, HAS_CORPUS } from './support/corpus.js';
import { KINDS, makeCase, REFUSALS, type Kind } from './support/ladder-cases.js';
import { referenceLadder, type LadderOutcome } from './support/ladder-model.js';
import { seededRandom, TEST_SEED } from './support/seeded.js';
import { quickOrFull } from './support/weight.js';

/**
 * The imperfect-edit corpus: real files (../shared/corpus/code, two corpus text files,
 * fixtures of our own, CRLF copies), seeded edits whose old_string is perturbed per kind. Each
 * edit runs through Edit; its outcome must equal the reference model's (test/support/
 * ladder-model.ts, code and bytes), and the landing rate is counted against the bytes the edit's
 * author intended.
 */
const CODE = path.join(CORPUS, 'code');

/** Perturbed edits per source file and kind: 4 in `npm test`, 10 in the heavy suite. */
const PER_KIND = quickOrFull(4, 10);
const FIXTURES = path.resolve(process.cwd(), 'test/fixtures/ladder');

interface Source {
  name: string;
  text: string;
}

function sources(): Source[] {
  const code = readdirSync(CODE)
    .filter((n) => n !== 'README.md')
    .map((n) => ({ name: n, text: readFileSync(path.join(CODE, n), 'utf8') }));
  const extra = ['text/curly-quotes.md', 'text/crlf.bat'].map((n) => ({
    name: path.basename(n),
    text: readFileSync(path.join(CORPUS, n), 'utf8'),
  }));
  const own = readdirSync(FIXTURES).map((n) => ({ name: n, text: readFileSync(path.join(FIXTURES, n), 'utf8') }));
  const crlf = ['go-middleware.go', 'py-formatting.py', 'js-utils.js'].map((n) => {
    const s = code.find((c) => c.name === n)!;
    return { name: `crlf-${n}`, text: s.text.replace(/\r?\n/g, '\r\n') };
  });
  return [...code, ...extra, ...own, ...crlf];
}

interface Tally {
  cases: number;
  unambiguous: number;
  landed: number;
  agreed: number;
  wrongPlace: number;
  ambiguousApplied: number;
  refused: number;
}

const tally = new Map<Kind, Tally>();
const count = (k: Kind) => {
  if (!tally.has(k)) tally.set(k, { cases: 0, unambiguous: 0, landed: 0, agreed: 0, wrongPlace: 0, ambiguousApplied: 0, refused: 0 });
  return tally.get(k)!;
};

let bed: WriteTestbed;
beforeAll(async () => {
  bed = await makeWriteTestbed();
});
afterAll(async () => {
  await bed?.close();
  const rows = [...tally].map(
    ([k, t]) =>
      `${k.padEnd(20)} cases ${String(t.cases).padStart(4)}  unambiguous ${String(t.unambiguous).padStart(4)}  landed ${String(t.landed).padStart(4)} (${t.unambiguous ? ((100 * t.landed) / t.unambiguous).toFixed(1) : '-'}%)  refused ${String(t.refused).padStart(3)}  wrong-place ${t.wrongPlace}  ambiguous-applied ${t.ambiguousApplied}`,
  );
  if (rows.length) console.log(`imperfect-edit corpus (seed ${TEST_SEED}):\n${rows.join('\n')}`);
});

async function runCase(name: string, file: string, oldString: string, newString: string): Promise<LadderOutcome> {
  await fsp.writeFile(path.join(bed.root, name), file);
  await bed.markRead(name);
  const ctx = bed.ctx();
  try {
    const input = editInput.parse({ file_path: name, old_string: oldString, new_string: newString });
    const out = await runEdit(input, ctx, await ctx.resolve(name, 'write'));
    return { ok: true, text: await fsp.readFile(path.join(bed.root, name), 'utf8'), rung: out.result.match };
  } catch (err) {
    if (!isToolError(err)) throw err;
    const d = err.details as { rung?: string; lines?: number[] };
    return { ok: false, code: err.code, ...(d.rung ? { rung: d.rung, lines: d.lines } : {}) };
  }
}

describeCorpus('the imperfect-edit corpus', () => {
  const all = HAS_CORPUS ? sources() : [];
  for (const kind of [...KINDS, ...REFUSALS]) {
    it(`${kind}: every perturbed edit answers as the reference model does; unambiguous ones land`, async () => {
      const t = count(kind);
      for (const [fi, src] of all.entries()) {
        const eol = src.text.includes('\r\n') ? '\r\n' : '\n';
        const finalBreak = /\r?\n$/.test(src.text);
        const lines = src.text.replace(/\r?\n$/, '').split(/\r?\n/);
        for (let i = 0; i < PER_KIND; i += 1) {
          const rand = seededRandom(TEST_SEED + fi * 1000 + i * 17 + kind.length * 7919);
          const c = makeCase(kind, lines, eol, finalBreak, rand);
          if (!c) continue;
          t.cases += 1;
          const want = referenceLadder(c.file, c.oldString, c.newString, false);
          const got = await runCase(`${kind}-${src.name}`, c.file, c.oldString, c.newString);
          const label = `${src.name} #${i} ${JSON.stringify(c.oldString).slice(0, 120)}`;
          expect(got, label).toEqual(want);
          t.agreed += 1;
          if (!got.ok) t.refused += 1;
          if (got.ok && got.text !== c.intended && (!want.ok || want.text !== got.text)) t.wrongPlace += 1;
          if (got.ok && !want.ok) t.ambiguousApplied += 1;
          if (kind === 'inconsistent') expect(got.ok && got.rung === 'indentation', label).toBe(false);
          if (want.ok && want.text === c.intended) {
            t.unambiguous += 1;
            if (got.ok && got.text === c.intended) t.landed += 1;
          }
        }
      }
      expect(t.cases).toBeGreaterThan(50);
      expect(t.wrongPlace).toBe(0);
      expect(t.ambiguousApplied).toBe(0);
      if ((KINDS as readonly string[]).includes(kind)) expect(t.landed / t.unambiguous).toBeGreaterThanOrEqual(0.99);
      if (kind === 'ambiguous') expect(t.refused).toBe(t.cases);
      if (kind === 'inconsistent') expect(t.refused / t.cases).toBeGreaterThanOrEqual(0.95);
    }, 120_000);
  }
});
