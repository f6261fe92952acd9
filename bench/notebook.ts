/**
 * NotebookEdit benchmark: one-cell replace in a ~2 MB notebook with images.
 *   ours   — the notebook model's splice (decode → editNotebook → encode the new cell only) + durable write
 *   naive  — JSON.parse → change the cell → JSON.stringify(nb, null, 1) + durable write
 *   tool   — the whole NotebookEdit run (lock, read-state check, history, atomic write, diff)
 * Same file, same run, same durable write (temp file, fsync, rename, fsync folder).
 */
import { promises as fsp, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { diffLines } from 'diff';
import { editNotebook } from '../src/notebook/edit.js';
import { encodeNotebookEdit } from '../src/notebook/encode-edit.js';
import { decodeText } from '../src/text/codec.js';
import { runNotebookEdit } from '../src/tools/notebook-edit/run.js';
import { notebookEditInput } from '../src/tools/notebook-edit/schema.js';
import { makeWriteTestbed } from '../test/support/test-context.js';

type Json = Record<string, any>;
const ROUNDS = 30;

function corpusDir(): string {
  return path.resolve(process.cwd(), '../shared/corpus/notebooks');
}

/** ~2 MB: the two handbook notebooks with PNG outputs, their cells repeated. */
export function makeBigNotebook(targetBytes = 2_000_000): string {
  const a = JSON.parse(readFileSync(path.join(corpusDir(), '04.10-Customizing-Ticks.ipynb'), 'utf8')) as Json;
  const b = JSON.parse(readFileSync(path.join(corpusDir(), '05.06-Linear-Regression.ipynb'), 'utf8')) as Json;
  const nb: Json = { ...b, cells: [] };
  let text = '';
  while (text.length < targetBytes) {
    nb.cells.push(...structuredClone(a.cells), ...structuredClone(b.cells));
    text = JSON.stringify(nb, null, 1) + '\n'; // keys are already sorted: Jupyter's layout
  }
  return text;
}

async function durableWrite(file: string, bytes: Buffer): Promise<void> {
  const tmp = path.join(path.dirname(file), `.bench-tmp-${process.pid}`);
  const handle = await fsp.open(tmp, 'w');
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fsp.rename(tmp, file);
  const dir = await fsp.open(path.dirname(file), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

async function ours(file: string, cellId: string, source: string): Promise<void> {
  const bytes = await fsp.readFile(file);
  const decoded = decodeText(bytes);
  const out = editNotebook(decoded.text, { cellId, newSource: source, editMode: 'replace' });
  await durableWrite(file, encodeNotebookEdit(bytes, decoded, out.splice, out.text));
}

async function naive(file: string, index: number, source: string): Promise<void> {
  const nb = JSON.parse(await fsp.readFile(file, 'utf8')) as Json;
  const cell = nb.cells[index] as Json;
  Object.assign(cell, { source: source.split(/(?<=\n)/), execution_count: null, outputs: [] });
  await durableWrite(file, Buffer.from(JSON.stringify(nb, null, 1), 'utf8'));
}

function stats(samples: number[]): string {
  const sorted = [...samples].sort((x, y) => x - y);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  const p95 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))] ?? 0;
  const mean = samples.reduce((s, x) => s + x, 0) / samples.length;
  return `median ${median.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, ${(1000 / mean).toFixed(1)} edits/s`;
}

async function time(fn: () => Promise<void>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Lines removed plus lines added between two texts (a line diff, as git would count). */
function changedLines(before: string, after: string): number {
  return diffLines(before, after)
    .filter((part) => part.added || part.removed)
    .reduce((sum, part) => sum + (part.count ?? 0), 0);
}

export async function benchNotebook(log: (line: string) => void = console.log): Promise<void> {
  const text = makeBigNotebook();
  const nb = JSON.parse(text) as Json;
  const index = (nb.cells as Json[]).findIndex((c, i) => c.cell_type === 'code' && i > nb.cells.length / 2);
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-bench-nb-'));
  const oursFile = path.join(dir, 'ours.ipynb');
  const naiveFile = path.join(dir, 'naive.ipynb');
  try {
    await fsp.writeFile(oursFile, text);
    await fsp.writeFile(naiveFile, text);
    const a: number[] = [];
    const b: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const source = `value = ${round}\nprint(value)`;
      // Alternate who goes first, so neither always follows the other's fsync.
      const runOurs = async () => void a.push(await time(() => ours(oursFile, `cell-${index}`, source)));
      const runNaive = async () => void b.push(await time(() => naive(naiveFile, index, source)));
      if (round % 2 === 0) await runOurs().then(runNaive);
      else await runNaive().then(runOurs);
    }
    const mb = (Buffer.byteLength(text) / 1e6).toFixed(2);
    log(`notebook: one-cell replace in a ${mb} MB notebook (${nb.cells.length} cells, PNG outputs), ${ROUNDS} rounds`);
    log(`  minimal-diff splice + durable write  : ${stats(a)}`);
    log(`  naive parse+stringify + durable write: ${stats(b)}`);
    log(`  ratio naive/ours (median latency)    : ${(median(b) / median(a)).toFixed(2)}x`);
    log(`  compute only, no I/O (decode → edit → encode vs parse → stringify → Buffer): ${computeOnly(text, index)}`);
    const once = editNotebook(text, { cellId: `cell-${index}`, newSource: 'x = 1', editMode: 'replace' }).text;
    const edited = structuredClone(nb);
    Object.assign(edited.cells[index] as Json, { source: ['x = 1'], execution_count: null, outputs: [] });
    const naiveOnce = JSON.stringify(edited, null, 1);
    log(
      `  lines changed by that edit           : ours ${changedLines(text, once)}, naive ${changedLines(text, naiveOnce)} (removed + added; naive also drops the final newline, and rewrites every line of a notebook not in JSON.stringify's layout)`,
    );
    log(`  full NotebookEdit tool (lock, read state, history, atomic write, diff): ${await toolLatency(text, index)}`);
  } finally {
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

function computeOnly(text: string, index: number): string {
  const bytes = Buffer.from(text, 'utf8');
  const oursMs = timeSync(() => {
    const decoded = decodeText(bytes);
    const out = editNotebook(decoded.text, { cellId: `cell-${index}`, newSource: 'x = 1', editMode: 'replace' });
    encodeNotebookEdit(bytes, decoded, out.splice, out.text);
  });
  const naiveMs = timeSync(() => {
    const nb = JSON.parse(bytes.toString('utf8')) as Json;
    Object.assign(nb.cells[index] as Json, { source: ['x = 1'], execution_count: null, outputs: [] });
    Buffer.from(JSON.stringify(nb, null, 1), 'utf8');
  });
  return `ours ${oursMs.toFixed(1)} ms, naive ${naiveMs.toFixed(1)} ms`;
}

/** Median of ROUNDS runs after one warm-up. */
function timeSync(fn: () => void): number {
  fn();
  const samples: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const start = process.hrtime.bigint();
    fn();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(samples);
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function toolLatency(text: string, index: number): Promise<string> {
  const bed = await makeWriteTestbed();
  try {
    await fsp.writeFile(path.join(bed.root, 'big.ipynb'), text);
    await bed.markRead('big.ipynb');
    const ctx = bed.ctx();
    const target = await ctx.resolve('big.ipynb', 'write');
    const samples: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const input = notebookEditInput.parse({ notebook_path: 'big.ipynb', cell_id: `cell-${index}`, new_source: `v = ${round}` });
      samples.push(await time(async () => void (await runNotebookEdit(input, ctx, target))));
    }
    return stats(samples);
  } finally {
    await bed.close();
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  await benchNotebook();
}

/** Same as benchNotebook (the name the brief used). */
export const runNotebookBench = benchNotebook;
