/**
 * The files every peer works on: the same bytes for each, built once per run.
 * Text files are numbered lines of ~100 characters; a notebook is a corpus notebook whose
 * chosen markdown cell holds a marker line the edit loops count up.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** A text of exactly `bytes` bytes (ASCII): `head` lines first, then numbered filler lines. */
export function textOfSize(bytes: number, head: string[] = []): string {
  const lines = [...head];
  let size = lines.reduce((sum, line) => sum + line.length + 1, 0);
  for (let i = 1; size < bytes; i++) {
    const line = `${String(i).padStart(5, '0')} the quick brown fox jumps over the lazy dog; pack my box with five dozen liquor jugs.`;
    lines.push(line);
    size += line.length + 1;
  }
  const text = `${lines.join('\n')}\n`;
  // Trim the last filler line so the size is exact (it keeps its final line break).
  return text.slice(0, bytes - 1) + '\n';
}

export function lineCount(text: string): number {
  return text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
}

export interface NotebookFixture {
  text: string;
  /** 0-based index of the markdown cell whose source is the marker. */
  cellIndex: number;
}

/** The marker line an edit loop turns from n into n + 1. */
export function marker(n: number): string {
  return `bench marker ${n}`;
}

/**
 * A real notebook (03.05, 71 KB, nbformat 4, code cells with outputs), saved in Jupyter's
 * own layout (1-space indent, sorted keys as in the corpus), its middle markdown cell's source
 * set to `marker(0)`.
 */
export function notebookFixture(corpus = path.resolve(process.cwd(), '../shared/corpus')): NotebookFixture {
  const file = path.join(corpus, 'notebooks', '03.05-Hierarchical-Indexing.ipynb');
  const nb = JSON.parse(readFileSync(file, 'utf8')) as { cells: Array<{ cell_type: string; source: unknown }> };
  const middle = Math.floor(nb.cells.length / 2);
  let cellIndex = nb.cells.findIndex((cell, i) => i >= middle && cell.cell_type === 'markdown');
  if (cellIndex < 0) cellIndex = nb.cells.findIndex((cell) => cell.cell_type === 'markdown');
  nb.cells[cellIndex]!.source = [marker(0)];
  return { text: `${JSON.stringify(nb, null, 1)}\n`, cellIndex };
}
