/**
 * The soak's workspace and its checker. Text files carry one `ANCHOR <name>` line; each Edit
 * inserts a unique marker line after it. Notebooks are real corpus notebooks; each
 * NotebookEdit inserts a markdown cell whose source is a unique marker. At the end, taking the
 * marker lines (cells) out of each file must give back its original bytes (cells), every
 * acknowledged marker must be there exactly once, and no refused one at all.
 */
import { readFileSync, promises as fsp } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { textOfSize } from '../bench/support/fixtures.js';

// ajv-draft-04 is CommonJS whose module.exports is the class; NodeNext types see a namespace.
const Ajv = createRequire(import.meta.url)('ajv-draft-04') as typeof import('ajv-draft-04').default;

type Json = Record<string, any>;

export const MARKER = /^m-\d+-s\d+$/;

export interface SoakFile {
  rel: string;
  kind: 'text' | 'notebook';
  original: string;
  /** Text files: the line each Edit anchors on. */
  anchor: string;
  /** Notebooks: the number of cells at the start. */
  cells: number;
  acked: Set<string>;
  refused: Set<string>;
}

const NOTEBOOKS = ['01.01-Help-And-Documentation', 'zh-ML-Exercise3', 'zh-ML-Exercise4', '02.02-The-Basics-Of-NumPy-Arrays'];

export async function makeSoakFiles(root: string, count: number, notebooks: number, random: () => number): Promise<SoakFile[]> {
  const corpus = path.resolve(process.cwd(), '../shared/corpus/notebooks');
  const files: SoakFile[] = [];
  for (let i = 0; i < count - notebooks; i++) {
    const anchor = `ANCHOR t${i}`;
    const original = textOfSize(2048 + Math.floor(random() * 14 * 1024), [`# soak file t${i}`, anchor]);
    files.push({ rel: `d${i % 10}/t${i}.txt`, kind: 'text', original, anchor, cells: 0, acked: new Set(), refused: new Set() });
  }
  for (let j = 0; j < notebooks; j++) {
    const original = readFileSync(path.join(corpus, `${NOTEBOOKS[j % NOTEBOOKS.length]}.ipynb`), 'utf8');
    const cells = (JSON.parse(original) as Json).cells.length as number;
    files.push({ rel: `nb/n${j}.ipynb`, kind: 'notebook', original, anchor: '', cells, acked: new Set(), refused: new Set() });
  }
  for (const file of files) {
    await fsp.mkdir(path.dirname(path.join(root, file.rel)), { recursive: true });
    await fsp.writeFile(path.join(root, file.rel), file.original);
  }
  return files;
}

export interface CheckReport {
  lost: string[];
  corrupt: string[];
  phantom: string[];
  tempFiles: string[];
  ackedMarkers: number;
}

export async function checkSoakFiles(root: string, files: SoakFile[]): Promise<CheckReport> {
  const report: CheckReport = { lost: [], corrupt: [], phantom: [], tempFiles: await tempFiles(root), ackedMarkers: 0 };
  const validators = new Map<string, (nb: unknown) => boolean>();
  for (const file of files) {
    report.ackedMarkers += file.acked.size;
    const text = await fsp.readFile(path.join(root, file.rel), 'utf8').catch(() => null);
    if (text === null) {
      report.corrupt.push(`${file.rel}: missing`);
      continue;
    }
    const found = file.kind === 'text' ? checkText(file, text, report) : checkNotebook(file, text, report, validators);
    if (found === null) continue;
    for (const m of file.acked) if ((found.get(m) ?? 0) !== 1) report.lost.push(`${file.rel}: ${m} found ${found.get(m) ?? 0} times`);
    for (const m of file.refused) if (found.has(m)) report.phantom.push(`${file.rel}: refused ${m} is present`);
    for (const m of found.keys()) if (!file.acked.has(m) && !file.refused.has(m)) report.phantom.push(`${file.rel}: unknown ${m}`);
  }
  return report;
}

/** Marker counts, or null (and a corrupt entry) when the rest of the file is not the original. */
function checkText(file: SoakFile, text: string, report: CheckReport): Map<string, number> | null {
  const found = new Map<string, number>();
  const rest = text.split('\n').filter((line) => {
    if (!MARKER.test(line)) return true;
    found.set(line, (found.get(line) ?? 0) + 1);
    return false;
  });
  if (rest.join('\n') !== file.original) {
    report.corrupt.push(`${file.rel}: bytes outside the inserted marker lines changed`);
    return null;
  }
  return found;
}

function checkNotebook(
  file: SoakFile,
  text: string,
  report: CheckReport,
  validators: Map<string, (nb: unknown) => boolean>,
): Map<string, number> | null {
  let nb: Json;
  try {
    nb = JSON.parse(text) as Json;
  } catch {
    report.corrupt.push(`${file.rel}: not JSON`);
    return null;
  }
  const before = JSON.parse(file.original) as Json;
  if (!Array.isArray(nb.cells) || nb.nbformat !== 4) {
    report.corrupt.push(`${file.rel}: not an nbformat 4 notebook`);
    return null;
  }
  const validate = validatorFor(nb, validators);
  if (validate(before) && !validate(nb)) report.corrupt.push(`${file.rel}: no longer valid against its nbformat schema`);
  const found = new Map<string, number>();
  const kept = (nb.cells as Json[]).filter((cell) => {
    const source = Array.isArray(cell.source) ? cell.source.join('') : String(cell.source);
    if (!MARKER.test(source)) return true;
    found.set(source, (found.get(source) ?? 0) + 1);
    return false;
  });
  const { cells: _a, ...topAfter } = nb;
  const { cells: _b, ...topBefore } = before;
  if (!isDeepStrictEqual(kept, before.cells) || !isDeepStrictEqual(topAfter, topBefore)) {
    report.corrupt.push(`${file.rel}: original cells or top-level fields changed`);
    return null;
  }
  return found;
}

function validatorFor(nb: Json, cache: Map<string, (nb: unknown) => boolean>): (nb: unknown) => boolean {
  const minor = typeof nb.nbformat_minor === 'number' ? nb.nbformat_minor : 0;
  const name = minor <= 5 ? `nbformat.v4.${minor}.schema.json` : 'nbformat.v4.schema.json';
  let validate = cache.get(name);
  if (!validate) {
    const schema = JSON.parse(readFileSync(path.resolve(process.cwd(), '../shared/corpus/nbformat/schemas', name), 'utf8'));
    const compiled = new Ajv({ strict: false }).compile(schema);
    validate = (doc) => compiled(doc) as boolean;
    cache.set(name, validate);
  }
  return validate;
}

/** Temp files of the atomic writer still visible in the workspace (there must be none). */
async function tempFiles(root: string): Promise<string[]> {
  const entries = await fsp.readdir(root, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.name.startsWith('.sidefile-tmp-'))
    .map((e) => path.relative(root, path.join(e.parentPath ?? e.path, e.name)));
}
