import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { mergeThreeWay } from '../../src/merge/three-way.js';

/** The seeded PRNG the fault tests use, so a failing case is found again from its seed. */
import { seededRandom } from './seeded.js';

export const prng = seededRandom;

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
    // Gaps of 0–3 lines, or spread over the file: touching, near and far changes all occur.
    const gap = rand() < 0.5 ? 4 : Math.max(4, Math.floor(n / (maxOps + 1)));
    const start = at + Math.floor(rand() * gap);
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

/**
 * Random cases against git: bases of distinct lines, changes that add fresh lines, drawn
 * independently (mostly overlapping or touching), kept apart (mostly disjoint) or copied (the
 * same change on both sides). Every case must give git's answer.
 */
export function runGitCases(git: GitMerge, seed: number, count: number, maxLines = 30): { merged: number; conflicts: number } {
  const rand = prng(seed);
  let merged = 0;
  let conflicts = 0;
  for (let c = 0; c < count; c += 1) {
    let next = 0;
    const n = Math.floor(rand() * maxLines);
    const base = Array.from({ length: n }, (_, i) => `line ${i} of ${c}`);
    const fresh = (tag: string) => () => `${tag} ${c}.${(next += 1)}`;
    const oursOps = randomOps(rand, n, 3);
    const apart = rand() < 0.5;
    // Kept apart: theirs changes only lines at least two away from every change of ours.
    const theirsOps = apart
      ? randomOps(rand, n, 4).filter((t) => oursOps.every((o) => t.end + 1 < o.start || o.end + 1 < t.start))
      : rand() < 0.15
        ? oursOps
        : randomOps(rand, n, 3);
    const ours = applyOps(base, oursOps, fresh('ours'));
    const theirs = theirsOps === oursOps ? ours : applyOps(base, theirsOps, fresh('theirs'));
    const eol = rand() < 0.25 ? '\r\n' : '\n';
    const final = rand() < 0.85;
    const [b, o, t] = [base, ours.lines, theirs.lines].map((l) => joinLines(l, eol, final)) as [string, string, string];
    const want = git.run(b, o, t);
    const got = mergeThreeWay(b, o, t);
    const where = `seed ${seed}, case ${c}`;
    if (want.clean) {
      expect(got, where).toMatchObject({ kind: 'merged', text: want.text });
      merged += 1;
    } else {
      expect(got.kind, where).toBe('conflict');
      conflicts += 1;
    }
  }
  return { merged, conflicts };
}
