import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A seeded PRNG (mulberry32), so a failing case is found again from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Side {
  lines: string[];
  /** Fresh lines this side added (each occurs nowhere else). */
  added: string[];
}

/** One change: base lines [start, end) replaced by `count` fresh lines. */
interface Op {
  start: number;
  end: number;
  count: number;
}

/** Random changes over `n` base lines, separated by at least one untouched line. */
export function randomOps(rand: () => number, n: number, maxOps: number): Op[] {
  const ops: Op[] = [];
  let at = 0;
  const wanted = Math.floor(rand() * (maxOps + 1));
  while (ops.length < wanted && at <= n) {
    const start = at + Math.floor(rand() * 4);
    if (start > n) break;
    const end = Math.min(n, start + Math.floor(rand() * 3));
    const count = end === start ? 1 + Math.floor(rand() * 2) : Math.floor(rand() * 3);
    ops.push({ start, end, count });
    at = end + 1;
  }
  return ops;
}

export function applyOps(base: string[], ops: Op[], fresh: () => string): Side {
  const lines: string[] = [];
  const added: string[] = [];
  let at = 0;
  for (const op of ops) {
    lines.push(...base.slice(at, op.start));
    for (let k = 0; k < op.count; k += 1) {
      const line = fresh();
      added.push(line);
      lines.push(line);
    }
    at = op.end;
  }
  lines.push(...base.slice(at));
  return { lines, added };
}

/** Lines with their breaks; the last may lose its break. */
export function joinLines(lines: string[], eol: string, finalBreak: boolean): string {
  if (lines.length === 0) return '';
  return lines.map((l, i) => (i < lines.length - 1 || finalBreak ? `${l}${eol}` : l)).join('');
}

/** `git merge-file -p` on three texts: its exit status (0 clean, >0 conflicts) and output. */
export class GitMerge {
  private readonly dir = mkdtempSync(path.join(os.tmpdir(), 'merge-oracle-'));

  run(base: string, ours: string, theirs: string): { clean: boolean; text: string } {
    const [b, o, t] = ['base', 'ours', 'theirs'].map((n) => path.join(this.dir, n)) as [string, string, string];
    writeFileSync(b, base);
    writeFileSync(o, ours);
    writeFileSync(t, theirs);
    const out = spawnSync('git', ['merge-file', '-p', o, b, t], { encoding: 'utf8' });
    if (out.status === null || out.status < 0) throw new Error(`git merge-file failed: ${out.stderr}`);
    return { clean: out.status === 0, text: out.stdout };
  }

  close(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
