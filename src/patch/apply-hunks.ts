import { ToolError } from '../errors.js';
import type { Hunk } from './parse.js';
import { locateAnchor, locateHunk, type Rung } from './locate.js';

/**
 * An Update's hunks applied to a file's decoded text (SPEC §13): each hunk is located after
 * the previous one and after its anchors; context lines keep the file's own characters and
 * line breaks, removed lines are the file's matched lines, added lines are the patch's with
 * the file's line break. Everything outside the hunks stays as it was.
 */

interface FileLine {
  text: string;
  /** '' for a last line without a line break. */
  eol: string;
}

const RUNG_ORDER: Rung[] = ['exact', 'quotes', 'line_numbers', 'trailing_whitespace', 'indentation', 'unicode'];

export interface AppliedHunks {
  after: string;
  /** The loosest rung any hunk needed. */
  rung: Rung;
}

export function splitFileLines(text: string): FileLine[] {
  const out: FileLine[] = [];
  const re = /\r\n|\n|\r/g;
  let at = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    out.push({ text: text.slice(at, m.index), eol: m[0] });
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push({ text: text.slice(at), eol: '' });
  return out;
}

interface Replacement {
  start: number;
  /** Old lines replaced. */
  count: number;
  lines: FileLine[];
}

/** Work between two yields to the event loop (SPEC §8: no call stalls others). */
const SLICE_MS = 10;
const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Applies `hunks` in order; throws CONTEXT_NOT_FOUND / MULTIPLE_MATCHES naming the hunk. Each
 * search can scan the rest of a large file, so a patch of many hunks yields between slices.
 */
export async function applyHunks(text: string, hunks: Hunk[], filePath: string, lineBreak: string): Promise<AppliedHunks> {
  const file = splitFileLines(text);
  const plain = file.map((l) => l.text);
  const replacements: Replacement[] = [];
  let from = 0;
  let rung: Rung = 'exact';
  let sliceStart = performance.now();
  for (const [index, hunk] of hunks.entries()) {
    if (performance.now() - sliceStart > SLICE_MS) {
      await yieldNow();
      sliceStart = performance.now();
    }
    const placed = placeHunk(plain, hunk, from, filePath, index);
    if (RUNG_ORDER.indexOf(placed.rung) > RUNG_ORDER.indexOf(rung)) rung = placed.rung;
    const old = file.slice(placed.start, placed.start + placed.count);
    replacements.push({ start: placed.start, count: placed.count, lines: newLines(placed.hunk, old, lineBreak) });
    from = placed.start + placed.count;
  }
  return { after: assemble(file, replacements, lineBreak), rung };
}

interface Placed {
  start: number;
  count: number;
  rung: Rung;
  /** The hunk as matched (a trailing blank context line may have been dropped). */
  hunk: Hunk;
}

function placeHunk(plain: string[], hunk: Hunk, after: number, filePath: string, index: number): Placed {
  let from = after;
  for (const anchor of hunk.anchors) {
    const at = locateAnchor(plain, anchor, from);
    if (at < 0) throw notFound(filePath, index, hunk, `its anchor '@@ ${anchor}' is not in the file after the previous hunk`);
    from = at + 1;
  }
  const old = oldLines(hunk);
  // Only `+` lines: appended at the end of the file.
  if (old.length === 0) return { start: plain.length, count: 0, rung: 'exact', hunk };
  const query = { lines: plain, from, endOfFile: hunk.endOfFile, anchored: hunk.anchors.length > 0 };
  let found = locateHunk({ ...query, old });
  let used = hunk;
  // A blank context line ending the hunk often stands for the file's final line break.
  if (found.kind === 'none' && old[old.length - 1] === '' && hunk.lines[hunk.lines.length - 1]?.kind === ' ') {
    used = { ...hunk, lines: hunk.lines.slice(0, -1) };
    found = locateHunk({ ...query, old: old.slice(0, -1) });
  }
  if (found.kind === 'none') throw notFound(filePath, index, hunk, 'its context and removed lines are not in the file');
  if (found.kind === 'multiple') {
    const lines = found.starts.map((s) => s + 1);
    throw new ToolError(
      'MULTIPLE_MATCHES',
      `Hunk ${index + 1} of ${filePath} matches ${lines.length} places (lines ${lines.join(', ')}). Add context lines, or an '@@ <line>' anchor naming the function or class it is in.`,
      { file_path: filePath, hunk: index, matches: lines.length, lines, rung: found.rung },
    );
  }
  return { start: found.start, count: oldLines(used).length, rung: found.rung, hunk: used };
}

function oldLines(hunk: Hunk): string[] {
  return hunk.lines.filter((l) => l.kind !== '+').map((l) => l.text);
}

function notFound(filePath: string, index: number, hunk: Hunk, why: string): ToolError {
  const old = oldLines(hunk);
  return new ToolError(
    'CONTEXT_NOT_FOUND',
    `Hunk ${index + 1} of ${filePath} (patch line ${hunk.line}) does not apply: ${why}. ` +
      'Read the file again and copy the context (" ") and removed ("-") lines exactly, in file order.',
    { file_path: filePath, hunk: index, closest: null, old_lines: old.length },
  );
}

/** The hunk's new lines: context lines are the file's own (matched) lines, added lines get `lineBreak`. */
function newLines(hunk: Hunk, old: FileLine[], lineBreak: string): FileLine[] {
  const out: FileLine[] = [];
  let k = 0;
  for (const line of hunk.lines) {
    if (line.kind === '+') out.push({ text: line.text, eol: lineBreak });
    else if (line.kind === ' ') out.push(old[k++]!);
    else k += 1;
  }
  return out;
}

/** The file with every replacement spliced in; the last line's break follows the file's. */
function assemble(file: FileLine[], replacements: Replacement[], lineBreak: string): string {
  const out: FileLine[] = [];
  let at = 0;
  for (const r of replacements) {
    out.push(...file.slice(at, r.start), ...r.lines);
    at = r.start + r.count;
  }
  out.push(...file.slice(at));
  const endsOpen = file.length > 0 && file[file.length - 1]!.eol === '';
  let text = '';
  for (let i = 0; i < out.length; i += 1) {
    const line = out[i]!;
    const isLast = i === out.length - 1;
    // A line that was last without a break and now has lines after it gets one; the new last
    // line has a break exactly when the file's last line had one.
    const eol = isLast ? (endsOpen ? '' : line.eol || lineBreak) : line.eol || lineBreak;
    text += line.text + eol;
  }
  return text;
}
