import { ToolError } from '../errors.js';
import type { Hunk } from './parse.js';
import { findClosest, formatClosest, ladderBudget, rewriteLines, type LineFit, type WorkBudget } from '../match/index.js';
import { assertNoPlaceholder } from './hunk-placeholders.js';
import { locateAnchor, locateHunk, type Rung } from './locate.js';

/**
 * An Update's hunks applied to a file's decoded text: each hunk is located after
 * the previous one and after its anchors; context lines keep the file's own characters and
 * line breaks, removed lines are the file's matched lines, added lines are the patch's with
 * the file's line break. Everything outside the hunks stays as it was.
 */

/** A text's lines, with where each starts (the text is never copied line by line). */
interface FileLines {
  text: string;
  /** Line contents, without breaks. */
  lines: string[];
  /** Offset of each line's start; one more entry: the text's length. */
  starts: number[];
  /** Offset where each line's break begins (= its content's end). */
  ends: number[];
}

const RUNG_ORDER: Rung[] = ['exact', 'quotes', 'line_numbers', 'trailing_whitespace', 'indentation', 'unicode'];

export interface AppliedHunks {
  after: string;
  /** The loosest rung any hunk needed. */
  rung: Rung;
}

export function splitFileLines(text: string): FileLines {
  if (!text.includes('\r')) return splitLf(text);
  const lines: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  const re = /\r\n|\n|\r/g;
  let at = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    lines.push(text.slice(at, m.index));
    starts.push(at);
    ends.push(m.index);
    at = m.index + m[0].length;
  }
  if (at < text.length) {
    lines.push(text.slice(at));
    starts.push(at);
    ends.push(text.length);
  }
  starts.push(text.length);
  return { text, lines, starts, ends };
}

/** LF-only text (the common case): one native split, offsets from the lengths. */
function splitLf(text: string): FileLines {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const starts = new Array<number>(lines.length + 1);
  const ends = new Array<number>(lines.length);
  let at = 0;
  for (let i = 0; i < lines.length; i += 1) {
    starts[i] = at;
    ends[i] = at + lines[i]!.length;
    at = ends[i]! + 1;
  }
  starts[lines.length] = text.length;
  return { text, lines, starts, ends };
}

/** Line `i`'s own break ('' for a last line without one). */
function eolAt(file: FileLines, i: number): string {
  return file.text.slice(file.ends[i], file.starts[i + 1]);
}

/** New lines as two parallel arrays: no object per line (a 30 MB hunk has half a million). */
interface NewLines {
  texts: string[];
  /** Each line's break; '' for a last line without one. */
  eols: string[];
}

interface Replacement extends NewLines {
  start: number;
  /** Old lines replaced. */
  count: number;
}

/** Work between two yields to the event loop (no call stalls others). */
const SLICE_MS = 10;
/** Hunks longer than this yield between their passes (placement, placeholder check, new lines). */
const BIG_HUNK_LINES = 50_000;
const yieldNow = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Applies `hunks` in order; throws CONTEXT_NOT_FOUND / MULTIPLE_MATCHES naming the hunk. Each
 * search can scan the rest of a large file, so a patch of many hunks yields between slices.
 */
export async function applyHunks(
  text: string,
  hunks: Hunk[],
  filePath: string,
  lineBreak: string,
  allowPlaceholders = false,
): Promise<AppliedHunks> {
  const file = splitFileLines(text);
  const replacements: Replacement[] = [];
  let from = 0;
  let rung: Rung = 'exact';
  let sliceStart = performance.now();
  // One matching budget for all the hunks of the file.
  const budget = ladderBudget(hunks.reduce((n, h) => n + h.lines.length, 0));
  for (const [index, hunk] of hunks.entries()) {
    if (performance.now() - sliceStart > SLICE_MS) {
      await yieldNow();
      sliceStart = performance.now();
    }
    const placed = placeHunk(file, hunk, from, filePath, index, budget);
    // A hunk of hundreds of thousands of lines (a 30 MB append): its passes run in slices.
    const big = hunk.lines.length > BIG_HUNK_LINES;
    if (big) await yieldNow();
    if (!allowPlaceholders) await assertNoPlaceholder(placed.hunk, filePath, index);
    if (big) await yieldNow();
    if (RUNG_ORDER.indexOf(placed.rung) > RUNG_ORDER.indexOf(rung)) rung = placed.rung;
    replacements.push({ start: placed.start, count: placed.count, ...(await newLines(placed, file, lineBreak)) });
    from = placed.start + placed.count;
    if (big) await yieldNow();
  }
  return { after: await assemble(file, replacements, lineBreak), rung };
}

/** Lines handled between two checks of the clock in the passes over a hunk's lines. */
const LINES_PER_CHECK = 4096;

/** Yields to the event loop once SLICE_MS of work ran since the last turn; cheap to call per line. */
function lineSlicer(): (i: number) => Promise<void> | undefined {
  let since = performance.now();
  return (i) => {
    if (i % LINES_PER_CHECK !== 0 || performance.now() - since < SLICE_MS) return undefined;
    return yieldNow().then(() => {
      since = performance.now();
    });
  };
}

interface Placed {
  start: number;
  count: number;
  rung: Rung;
  /** The hunk as matched (a trailing blank context line may have been dropped). */
  hunk: Hunk;
  /** How the old lines were matched (the added lines are rewritten the same way); null: appended. */
  fit: LineFit | null;
}

const STOPPED =
  'its context and removed lines fit so many places once whitespace is ignored that the search stopped before checking them all (copy them exactly, or add an @@ anchor)';

function placeHunk(file: FileLines, hunk: Hunk, after: number, filePath: string, index: number, budget: WorkBudget): Placed {
  const plain = file.lines;
  let from = after;
  for (const anchor of hunk.anchors) {
    const at = locateAnchor(plain, anchor, from);
    if (at < 0) throw notFound(file.text, filePath, index, hunk, `its anchor '@@ ${anchor}' is not in the file after the previous hunk`);
    from = at + 1;
  }
  const old = oldLines(hunk);
  // Only `+` lines: appended at the end of the file.
  if (old.length === 0) return { start: plain.length, count: 0, rung: 'exact', hunk, fit: null };
  const query = { lines: plain, from, endOfFile: hunk.endOfFile, anchored: hunk.anchors.length > 0, budget };
  let found = locateHunk({ ...query, old });
  let used = hunk;
  // A blank context line ending the hunk often stands for the file's final line break.
  if (found.kind === 'none' && old[old.length - 1] === '' && hunk.lines[hunk.lines.length - 1]?.kind === ' ') {
    used = { ...hunk, lines: hunk.lines.slice(0, -1) };
    found = locateHunk({ ...query, old: old.slice(0, -1) });
  }
  if (found.kind === 'none')
    throw notFound(file.text, filePath, index, hunk, found.stopped ? STOPPED : 'its context and removed lines are not in the file');
  if (found.kind === 'multiple') {
    const lines = found.starts.map((s) => s + 1);
    throw new ToolError(
      'MULTIPLE_MATCHES',
      `Hunk ${index + 1} of ${filePath} matches ${lines.length} places (lines ${lines.join(', ')}). Add context lines, or an '@@ <line>' anchor naming the function or class it is in.`,
      { file_path: filePath, hunk: index, matches: lines.length, lines, rung: found.rung },
    );
  }
  return { start: found.start, count: oldLines(used).length, rung: found.rung, hunk: used, fit: found.fit };
}

function oldLines(hunk: Hunk): string[] {
  return hunk.lines.filter((l) => l.kind !== '+').map((l) => l.text);
}

function notFound(text: string, filePath: string, index: number, hunk: Hunk, why: string): ToolError {
  const old = oldLines(hunk);
  // The place in the file most like the hunk's old lines, shown in the message too.
  const closest = findClosest(text, old.join('\n'));
  return new ToolError(
    'CONTEXT_NOT_FOUND',
    `Hunk ${index + 1} of ${filePath} (patch line ${hunk.line}) does not apply: ${why}. ` +
      (closest ? `${formatClosest(closest)}\n` : '') +
      'Read the file again and copy the context (" ") and removed ("-") lines exactly, in file order.',
    { file_path: filePath, hunk: index, closest, old_lines: old.length },
  );
}

/**
 * The hunk's new lines: context lines are the file's own (matched) lines, added lines get
 * `lineBreak` and are rewritten as the fit's rung says (re-indented, quotes curled, Read prefixes off).
 */
async function newLines({ hunk, start, fit }: Placed, file: FileLines, lineBreak: string): Promise<NewLines> {
  const slice = lineSlicer();
  const lines = hunk.lines;
  const added: string[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    if (lines[i]!.kind === '+') added.push(lines[i]!.text);
    await slice(i);
  }
  const rewritten = fit ? rewriteLines(fit, added) : added;
  const out: NewLines = { texts: [], eols: [] };
  let k = start;
  let a = 0;
  for (let i = 0; i < lines.length; i += 1) {
    await slice(i);
    const kind = lines[i]!.kind;
    if (kind === '+') {
      out.texts.push(rewritten[a++]!);
      out.eols.push(lineBreak);
    } else if (kind === ' ') {
      out.texts.push(file.lines[k]!);
      out.eols.push(eolAt(file, k++));
    } else k += 1;
  }
  return out;
}

/**
 * The file with every replacement spliced in: untouched stretches are sliced from the text as
 * they are. The last line has a break exactly when the file's last line had one.
 */
async function assemble(file: FileLines, replacements: Replacement[], lineBreak: string): Promise<string> {
  const n = file.lines.length;
  const endsOpen = n > 0 && file.ends[n - 1] === file.text.length;
  const slice = lineSlicer();
  // Bounded work: parts are joined a slice at a time into `joined` (one join of a million parts is a long turn).
  const joined: string[] = [];
  const parts: string[] = [];
  let at = 0;
  for (const r of replacements) {
    const upTo = file.starts[r.start]!;
    // Lines appended after a last line without a break: that line gets one first.
    const gap = r.start === n && endsOpen && r.texts.length > 0 ? lineBreak : '';
    parts.push(file.text.slice(at, upTo), gap);
    const reachesEnd = r.start + r.count === n;
    for (let k = 0; k < r.texts.length; k += 1) {
      const last = k === r.texts.length - 1;
      parts.push(r.texts[k]!, reachesEnd && last && endsOpen ? '' : r.eols[k] || lineBreak);
      if (k % LINES_PER_CHECK === LINES_PER_CHECK - 1) joined.push(parts.splice(0).join(''));
      await slice(k);
    }
    // Whole last lines removed from a file without a final break: the break before them goes too.
    if (reachesEnd && endsOpen && r.texts.length === 0 && r.count > 0 && !trimTrailingBreak(parts)) trimTrailingBreak(joined);
    at = file.starts[r.start + r.count]!;
  }
  parts.push(file.text.slice(at));
  joined.push(parts.join(''));
  return joined.join('');
}

/** Removes the line break ending the last non-empty part; false when every part is empty. */
function trimTrailingBreak(parts: string[]): boolean {
  for (let i = parts.length - 1; i >= 0; i -= 1) {
    const p = parts[i]!;
    if (p === '') continue;
    parts[i] = p.endsWith('\r\n') ? p.slice(0, -2) : /[\r\n]$/.test(p) ? p.slice(0, -1) : p;
    return true;
  }
  return false;
}
