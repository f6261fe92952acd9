/**
 * The heavy inputs of the bounded-work checks, shared by `npm run bench -- stall`
 * and the stall tests: each is generated, so no fixture file is stored.
 */

/** `lines` numbered lines of about `bytesPerLine` bytes each (10,000 × 13 ≈ 126 KiB). */
export function numberedLines(lines: number, bytesPerLine = 13, tag = 'line'): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i += 1) {
    const head = `${tag} ${String(i).padStart(6, '0')}`;
    out.push(head.padEnd(bytesPerLine - 1, 'x'));
  }
  return `${out.join('\n')}\n`;
}

/** A text where `needle` occurs `matches` times, one per line (`ab` × 5,000,000 ≈ 15 MB). */
export function manyMatches(matches: number, line = 'ab'): string {
  return `${line}\n`.repeat(matches);
}

/**
 * An nbformat 4.4 notebook of `cells` raw cells without ids, in Jupyter's own layout (1-space
 * indent, sorted keys), so an edit splices one cell. 1,000,000 cells ≈ 67 MB, just under the
 * 64 MiB a write tool takes; the first and every 1000th cell has a source ("c<i>").
 */
export function hugeNotebook(cells: number): string {
  const empty = '  {\n   "cell_type": "raw",\n   "metadata": {},\n   "source": ""\n  }';
  const parts: string[] = [];
  for (let i = 0; i < cells; i += 1) parts.push(i % 1000 === 0 ? empty.replace('""', `"c${i}"`) : empty);
  return `{\n "cells": [\n${parts.join(',\n')}\n ],\n "metadata": {},\n "nbformat": 4,\n "nbformat_minor": 4\n}\n`;
}

/** A notebook whose first cell's metadata nests `levels` arrays deep. */
export function deepNotebook(levels: number): string {
  const deep = '['.repeat(levels) + ']'.repeat(levels);
  return `{"cells":[{"cell_type":"code","metadata":{"x":${deep}},"source":"a","outputs":[],"execution_count":null}],"metadata":{},"nbformat":4,"nbformat_minor":4}`;
}
