/**
 * Fuzzing: for random texts and random edits, in every encoding of the corpus
 * (../shared/corpus/text), Edit writes exactly what a reference model of says
 * (test/support/edit-model.ts), every byte outside the edited span is unchanged, and when the
 * model refuses, Edit refuses with the same code and the file is untouched.
 * Seeded and time-bounded.
 */
import { promises as fsp, readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import iconv from 'iconv-lite';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isToolError } from '../src/errors.js';
import { editInput } from '../src/tools/edit/schema.js';
import { runEdit } from '../src/tools/edit/run.js';
import { makeWriteTestbed, type WriteTestbed } from './support/test-context.js';
import { referenceEdit } from './support/edit-model.js';
import { TEST_SEED } from './support/seeded.js';
import { CORPUS, HAS_CORPUS, describeCorpus } from './support/corpus.js';

const manifest = (HAS_CORPUS ? JSON.parse(readFileSync(path.join(CORPUS, 'text-manifest.json'), 'utf8')) : {}) as Record<
  string,
  { encoding: string }
>;

interface CorpusFile {
  name: string;
  encoding: string;
  bom: Buffer;
  bytes: Buffer;
  text: string;
  /** Characters the file uses (its encoding holds them), line breaks aside. */
  chars: string[];
  /** Legacy encodings are pinned with --encodings for generated texts: detection is not under test here. */
  legacy: boolean;
}

const BOMS: Record<string, Buffer> = {
  'utf-8': Buffer.from([0xef, 0xbb, 0xbf]),
  'utf-16le': Buffer.from([0xff, 0xfe]),
  'utf-32le': Buffer.from([0xff, 0xfe, 0x00, 0x00]),
};

const files: CorpusFile[] = Object.entries(manifest).map(([name, { encoding: described }]) => {
  const withBom = described.endsWith(' with BOM');
  const base = described.replace(/ with BOM$/, '');
  const encoding = base === 'ascii' ? 'utf-8' : base;
  const bytes = readFileSync(path.join(CORPUS, 'text', name));
  const bom = withBom ? BOMS[encoding]! : Buffer.alloc(0);
  expect(bytes.subarray(0, bom.length).equals(bom)).toBe(true);
  const text = iconv.decode(bytes.subarray(bom.length), encoding, { stripBOM: false });
  const chars = [...new Set([...text])].filter((c) => c !== '\r' && c !== '\n');
  return { name, encoding, bom, bytes, text, chars, legacy: !encoding.startsWith('utf') };
});

const encode = (f: CorpusFile, text: string) => Buffer.concat([f.bom, iconv.encode(text, f.encoding, { addBOM: false })]);

// ASCII every corpus encoding holds as itself (no backslash or tilde: Shift_JIS maps them to ¥ and ‾).
const ASCII = ['a', 'b', 'x', ' ', '(', '$', '&', '1', "'", '"', '$&', '$1', '$$', '$`'];
const BREAKS = ['\n', '\r\n', '\r'];

function unitsOf(f: CorpusFile): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...f.chars) },
    { weight: 2, arbitrary: fc.constantFrom(...ASCII) },
    { weight: 1, arbitrary: fc.constantFrom(...BREAKS) },
  );
}

interface Case {
  file: CorpusFile;
  /** The corpus file itself, or a generated text in its encoding (and BOM). */
  text: string;
  generated: boolean;
  oldString: string;
  newString: string;
  replaceAll: boolean;
}

/** old_string: a slice of the text (with its breaks and curly quotes perhaps changed), or random. */
function oldStringArb(text: string, units: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const slice = fc
    .tuple(
      fc.nat({ max: Math.max(0, text.length - 1) }),
      fc.integer({ min: 1, max: 12 }),
      fc.constantFrom('as is', 'lf', 'crlf', 'straight'),
    )
    .map(([at, len, how]) => {
      const s = text.slice(at, at + len);
      if (how === 'lf') return s.replace(/\r\n?/g, '\n');
      if (how === 'crlf') return s.replace(/\r\n?|\n/g, '\r\n');
      if (how === 'straight') return s.replace(/[\u2018\u2019]/g, "'").replace(/[\u201C\u201D]/g, '"');
      return s;
    })
    // A slice that starts or ends inside a CRLF does not name a whole break: not a useful edit.
    .filter((s) => s.length > 0);
  return fc.oneof(
    { weight: 4, arbitrary: slice },
    { weight: 1, arbitrary: fc.array(units, { minLength: 1, maxLength: 4 }).map((a) => a.join('')) },
  );
}

// Without the corpus there is no file to draw (the suite below is skipped then).
const caseArb: fc.Arbitrary<Case> = (HAS_CORPUS ? fc.constantFrom(...files) : fc.constant(files[0] as CorpusFile)).chain((file) => {
  const units = unitsOf(file);
  const textArb = fc.oneof(
    fc.constant({ text: file.text, generated: false }),
    fc.array(units, { maxLength: 60 }).map((a) => ({ text: a.join(''), generated: true })),
  );
  return textArb.chain(({ text, generated }) =>
    (text.length > 0 ? oldStringArb(text, units) : fc.constant('x')).chain((oldString) =>
      fc.record({
        file: fc.constant(file),
        text: fc.constant(text),
        generated: fc.constant(generated),
        oldString: fc.constant(oldString),
        newString: fc.oneof(
          { weight: 2, arbitrary: fc.constant('') },
          { weight: 8, arbitrary: fc.array(units, { maxLength: 6 }).map((a) => a.join('')) },
          { weight: 1, arbitrary: fc.constant(oldString) },
        ),
        replaceAll: fc.boolean(),
      }),
    ),
  );
});

let bed: WriteTestbed;
let run = 0;

beforeAll(async () => {
  // Generated texts in legacy encodings live under gen/<encoding>/ and are pinned there.
  bed = await makeWriteTestbed({ encodings: files.filter((f) => f.legacy).map((f) => [`gen/${f.encoding}/**`, f.encoding]) });
});
afterAll(async () => {
  await bed.close();
});

async function check(c: Case): Promise<void> {
  const { file } = c;
  const rel = `${c.generated && file.legacy ? `gen/${file.encoding}` : 'corpus'}/${run++}-${file.name}`;
  const original = c.generated ? encode(file, c.text) : file.bytes;
  await fsp.mkdir(path.dirname(path.join(bed.root, rel)), { recursive: true });
  await fsp.writeFile(path.join(bed.root, rel), original);
  await bed.markRead(rel);
  const expected = referenceEdit(c.text, c.oldString, c.newString, c.replaceAll);

  const ctx = bed.ctx();
  const input = editInput.parse({ file_path: rel, old_string: c.oldString, new_string: c.newString, replace_all: c.replaceAll });
  const got = await runEdit(input, ctx, await ctx.resolve(rel, 'write')).catch((e: unknown) => e);
  const written = await fsp.readFile(path.join(bed.root, rel));

  if (!expected.ok) {
    expect(isToolError(got) ? got.code : got).toBe(expected.code);
    if (expected.matches !== undefined && isToolError(got)) expect(got.details).toMatchObject({ matches: expected.matches });
    expect(written.equals(original)).toBe(true);
    return;
  }
  if (isToolError(got)) throw new Error(`Edit refused with ${got.code}: ${got.message}`);
  expect(written.toString('hex')).toBe(encode(file, expected.text).toString('hex'));
  // Every byte before the first and after the last edited span is the original's, byte for byte.
  const head = encode(file, c.text.slice(0, expected.first)).length;
  const tail = original.length - iconv.encode(c.text.slice(expected.last), file.encoding, { addBOM: false }).length;
  expect(written.subarray(0, head).equals(original.subarray(0, head))).toBe(true);
  expect(written.subarray(written.length - (original.length - tail)).equals(original.subarray(tail))).toBe(true);
}

describeCorpus('Edit against a reference model of Edit, in every corpus encoding', () => {
  it('writes what the model writes, keeps every byte outside the edit, and refuses as the model does', async () => {
    await fc.assert(fc.asyncProperty(caseArb, check), { seed: TEST_SEED, numRuns: 400, interruptAfterTimeLimit: 8_000 });
  });

  it('covers every corpus file, both original and generated texts, matches and refusals', () => {
    // The generator reaches every file and both kinds of text (a check on the test itself).
    const sample = fc.sample(caseArb, { seed: 20261130, numRuns: 400 });
    expect(new Set(sample.map((c) => c.file.name)).size).toBe(files.length);
    expect(new Set(sample.map((c) => c.generated)).size).toBe(2);
    const outcomes = new Set(
      sample.map((c) => {
        const r = referenceEdit(c.text, c.oldString, c.newString, c.replaceAll);
        return r.ok ? 'ok' : r.code;
      }),
    );
    expect([...outcomes]).toEqual(expect.arrayContaining(['MULTIPLE_MATCHES', 'NO_CHANGE', 'STRING_NOT_FOUND', 'ok']));
  });
});
