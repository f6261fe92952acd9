import { changedChunks, LineIds, splitLines, type Chunk } from './line-diff.js';

/** 1-based, inclusive line range. */
export type LineRange = [start: number, end: number];

export type MergeOutcome =
  | {
      kind: 'merged';
      text: string;
      /** The other writer's (theirs) changed regions, as lines of the merged text; a pure deletion has none. */
      theirs: LineRange[];
    }
  | {
      kind: 'conflict';
      /** Where the two sides' changes overlap or touch, as lines of the current (theirs) text. */
      conflict: LineRange[];
    };

/**
 * A three-way line merge with `git merge-file`'s rules: `base` is the version the writer read,
 * `ours` its result computed on that version, `theirs` the current text. Lines keep their line
 * breaks, so CRLF, lone CR and a missing final line break merge as the bytes they are.
 *
 * Each side's changes against the base are found with a (bounded) line diff. A change of one
 * side that is separated from every change of the other side by at least one unchanged line
 * is taken as it is; changes that overlap or touch (no unchanged line between them, an insert
 * at the edge of the other's change, two inserts at one place) form one region, which merges
 * only when both sides made it identical there — else the whole merge is a conflict. Nothing is
 * guessed between two edits of one line, and no line of either side is dropped.
 */
export function mergeThreeWay(base: string, ours: string, theirs: string): MergeOutcome {
  const ids = new LineIds();
  const b = splitLines(base);
  const o = splitLines(ours);
  const t = splitLines(theirs);
  const [bi, oi, ti] = [ids.of(b), ids.of(o), ids.of(t)];
  return mergeChunks({ base: b, ours: o, theirs: t, oi, ti }, changedChunks(bi, oi), changedChunks(bi, ti));
}

interface Sides {
  base: string[];
  ours: string[];
  theirs: string[];
  oi: number[];
  ti: number[];
}

function mergeChunks(s: Sides, a: Chunk[], b: Chunk[]): MergeOutcome {
  const out: string[] = [];
  const theirsLines: LineRange[] = [];
  const conflict: LineRange[] = [];
  let ia = 0;
  let ib = 0;
  // Other-side index minus base index past the chunks consumed so far.
  let da = 0;
  let db = 0;
  let pos = 0;
  while (ia < a.length || ib < b.length) {
    const first = ib >= b.length || (ia < a.length && a[ia]!.baseStart <= b[ib]!.baseStart) ? a[ia]! : b[ib]!;
    const rs = first.baseStart;
    let re = first.baseEnd;
    const oStart = rs + da;
    const tStart = rs + db;
    let fromA = 0;
    let fromB = 0;
    // Grow the region over every chunk of either side that starts inside it or at its end.
    for (;;) {
      if (ia < a.length && a[ia]!.baseStart <= re) {
        const c = a[ia++]!;
        re = Math.max(re, c.baseEnd);
        da = c.end - c.baseEnd;
        fromA += 1;
      } else if (ib < b.length && b[ib]!.baseStart <= re) {
        const c = b[ib++]!;
        re = Math.max(re, c.baseEnd);
        db = c.end - c.baseEnd;
        fromB += 1;
      } else break;
    }
    const oEnd = re + da;
    const tEnd = re + db;
    for (let k = pos; k < rs; k += 1) out.push(s.base[k]!);
    pos = re;
    if (fromB === 0) {
      for (let k = oStart; k < oEnd; k += 1) out.push(s.ours[k]!);
      continue;
    }
    if (fromA > 0 && !sameRun(s.oi, oStart, oEnd, s.ti, tStart, tEnd)) {
      conflict.push(tEnd > tStart ? [tStart + 1, tEnd] : edgeLine(tStart, s.theirs.length));
      continue;
    }
    if (tEnd > tStart) theirsLines.push([out.length + 1, out.length + tEnd - tStart]);
    for (let k = tStart; k < tEnd; k += 1) out.push(s.theirs[k]!);
  }
  if (conflict.length > 0) return { kind: 'conflict', conflict };
  for (let k = pos; k < s.base.length; k += 1) out.push(s.base[k]!);
  return { kind: 'merged', text: out.join(''), theirs: theirsLines };
}

function sameRun(x: number[], xs: number, xe: number, y: number[], ys: number, ye: number): boolean {
  if (xe - xs !== ye - ys) return false;
  for (let k = 0; k < xe - xs; k += 1) if (x[xs + k] !== y[ys + k]) return false;
  return true;
}

/** A conflict where the current text has no line of its own (it deleted them): the line at that place. */
function edgeLine(at: number, total: number): LineRange {
  const line = Math.max(1, Math.min(at + 1, total));
  return [line, line];
}
