import type { MessagePort } from 'node:worker_threads';
import picomatch from 'picomatch';
import { Budget } from '../../discovery/budget.js';
import { readFileChecked } from '../../discovery/checked-fs.js';
import { Emitter } from '../../discovery/emitter.js';
import { compilePattern } from '../../discovery/patterns.js';
import { compileGlobs } from '../../paths/globs.js';
import type { GrepItem, GrepLine, GrepTask } from '../../discovery/protocol.js';
import { walkFiles, walkOne, type WalkFile } from '../../discovery/walk.js';
import { cellIdAt, cellSource, parseNotebook } from '../../notebook/model.js';
import { bomBytes, bomEncoding, decodeBytes, detectEncoding } from '../../text/codec.js';
import { encodingOverrideFor } from '../../text/overrides.js';
import { SNIFF_BYTES, sniff } from '../../text/sniff.js';
import { compileRegex, cutLine, KEPT_CHARS, keptChars, lineText, matchingLines, withContext, type TextMatcher } from './search.js';
import { ownsOf } from './shard-of.js';

/** Files over this size are not searched (they would have to be held whole). */
const MAX_FILE_BYTES = 64 * 1024 * 1024;
/** Files up to this size are read into one reused buffer. */
const SCRATCH_BYTES = 1024 * 1024;
/** The C0 controls sniff counts (all but tab, LF, VT, FF, CR and ESC), NUL included. */
const CONTROL_BYTES = Array.from({ length: 32 }, (_, b) => b).filter((b) => ![0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1b].includes(b));

interface Section {
  cellId: string | null;
  text: string;
}

interface Keeper {
  skip: number;
  keep: number;
  /** Kept entries still to come that do not count toward KEPT_CHARS. */
  free: number;
  chars: number;
}

/** Grep's walk and search, in a discovery worker; files stream out in path order. */
export function runGrepTask(task: GrepTask, port: MessagePort): void {
  const matcher = compileRegex(task.pattern, task.ignoreCase, task.multiline);
  const globTest = task.glob === null ? null : compilePattern(task.glob, 'glob');
  const typeTest = task.typeGlobs === null ? null : picomatch(task.typeGlobs, { dot: true });
  const out = new Emitter<GrepItem>(port);
  const budget = new Budget(Date.now() + task.timeoutMs, task.maxEntries);
  const keeper: Keeper = { skip: task.skip, keep: task.keep ?? Infinity, free: task.free, chars: 0 };
  const scratch = Buffer.allocUnsafe(SCRATCH_BYTES);
  const literal = requiredLiteral(task.pattern, task.ignoreCase);
  // No deny globs: no relative path to compute per file.
  const deny = task.denyRead.length === 0 ? undefined : compileGlobs(task.denyRead);
  const visit = (file: WalkFile): void => {
    if (!budget.check()) return;
    if (globTest !== null && !globTest(file.relToStart)) return;
    if (typeTest !== null && !typeTest(file.rel.slice(file.rel.lastIndexOf('/') + 1))) return;
    out.tick();
    const item = searchFile(task, file, { matcher, literal, deny }, keeper, out, scratch);
    if (item !== null) out.push(item);
  };
  // A file's mtime comes from the fstat of its checked descriptor (searchFile), not an lstat.
  const walk = { ...task, budget, needStat: false, owns: ownsOf(task.shard) };
  const stats = task.fileName === null ? walkFiles(walk, visit) : walkOne(walk, task.fileName, visit);
  out.stats.skippedDirs = stats.skippedDirs;
  out.stats.stopped = budget.spent;
  out.end();
}

interface Search {
  matcher: TextMatcher;
  /** Bytes every match contains (see requiredLiteral). */
  literal: Buffer | null;
  /** Deny-read globs, checked again on each opened file's real path (undefined: none). */
  deny: ((relativeReal: string) => boolean) | undefined;
}

function searchFile(task: GrepTask, file: WalkFile, search: Search, keeper: Keeper, out: Emitter<GrepItem>, scratch: Buffer): GrepItem | null {
  const { matcher, literal } = search;
  const read = readFileChecked(task.root, file.at, MAX_FILE_BYTES + 1, search.deny, scratch);
  if (read === null || read.bytes.length > MAX_FILE_BYTES) return null;
  if (!isText(read.bytes.subarray(0, SNIFF_BYTES))) {
    out.stats.skippedBinary++;
    return null;
  }
  const override = encodingOverrideFor(task.encodings, file.rel);
  if (literal !== null && override === undefined && !isWide(read.bytes) && !read.bytes.includes(literal)) return null;
  let text: string;
  try {
    text = decode(read.bytes, override);
  } catch {
    return null;
  }
  const item: GrepItem = { rel: file.rel, mtimeMs: read.stat.mtimeMs, count: 0, entries: 0, lines: [] };
  for (const section of sectionsOf(file.rel, text)) {
    searchSection(task, section, matcher, keeper, item);
    if (task.mode === 'files_with_matches' && item.count > 0) break;
  }
  return item.count > 0 ? item : null;
}

/** A notebook that parses is searched in its cells' sources; anything else as one text. */
function sectionsOf(rel: string, text: string): Section[] {
  if (rel.endsWith('.ipynb')) {
    const parsed = parseNotebook(text);
    if (parsed.ok) return parsed.notebook.cells.map((cell, i) => ({ cellId: cellIdAt(cell, i), text: cellSource(cell) }));
  }
  return [{ cellId: null, text }];
}

function searchSection(task: GrepTask, section: Section, matcher: TextMatcher, keeper: Keeper, item: GrepItem): void {
  const { lines, starts } = matchingLines(section.text, matcher, task.mode === 'files_with_matches');
  if (lines.length === 0) return;
  item.count += lines.length;
  if (task.mode !== 'content') return;
  const entries = withContext(lines, starts.length, task.before, task.after);
  item.entries += entries.length;
  for (const [index, match] of entries) {
    if (keeper.skip > 0) {
      keeper.skip--;
      continue;
    }
    if (keeper.keep <= 0 || keeper.chars >= KEPT_CHARS) continue;
    const text = cutLine(lineText(section.text, starts, index));
    const line: GrepLine = [section.cellId, index + 1, text, match];
    item.lines.push(line);
    keeper.keep--;
    if (keeper.free > 0) keeper.free--;
    else keeper.chars += keptChars(item.rel, text);
  }
}

/**
 * Read's binary test (sniff), answered faster for the common case: a head without a single
 * control byte has a control ratio of 0 and no NUL, so only sniff's magic-number checks (all
 * within the first 16 bytes) can decide, and sniff of the first 64 bytes gives the same answer.
 */
function isText(head: Buffer): boolean {
  // One native memchr per byte value: several times faster than a JS or RegExp scan of the head.
  if (CONTROL_BYTES.some((b) => head.includes(b))) return sniff(head).kind === 'text';
  return sniff(head.subarray(0, 64)).kind === 'text';
}

/** Read's decoding (BOM, --encodings, UTF-8, detected legacy) without its line-ending census. */
function decode(bytes: Buffer, override: string | undefined): string {
  const enc = detectEncoding(bytes, override);
  const start = enc.bom ? (bomBytes(enc.encoding)?.length ?? 0) : 0;
  return decodeBytes(bytes.subarray(start), enc.encoding);
}

/** Characters that stand for themselves in a regular expression and that JSON never escapes. */
const PLAIN_CHAR = /[A-Za-z0-9_ ,:;=<>!@#%&~`'-]/;

/**
 * A piece of text every match must contain, as bytes: the longest run of plain characters at
 * the top level of the pattern (`function\s+handle\w*Event` → "function"), or the whole pattern
 * when it is a plain literal. None with -i, with a top-level `|`, or when no run has 3 characters.
 * Every encoding Read detects (UTF-8, GBK, Shift_JIS, EUC, windows-125x…) keeps ASCII as is,
 * except UTF-16/32 (known by their BOM, see isWide), and a notebook's JSON keeps these characters
 * as they are in its cells — so a file whose bytes lack the run cannot match and is passed over
 * undecoded. ripgrep makes the same cut with its literal prefilter.
 */
export function requiredLiteral(pattern: string, ignoreCase: boolean): Buffer | null {
  if (ignoreCase) return null;
  const runs: string[] = [];
  let run = '';
  let depth = 0;
  let inClass = false;
  const cut = () => {
    runs.push(run);
    run = '';
  };
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    const next = pattern[i + 1];
    if (ch === '\\') {
      cut();
      i++;
    } else if (inClass) {
      if (ch === ']') inClass = false;
    } else if (ch === '[') {
      cut();
      inClass = true;
    } else if (ch === '(' || ch === ')') {
      cut();
      depth += ch === '(' ? 1 : -1;
    } else if (ch === '|') {
      if (depth === 0) return null;
    } else if (depth === 0 && PLAIN_CHAR.test(ch) && !(next === '*' || next === '?' || next === '{')) {
      run += ch;
      // `b+` is required once, but "ab+c" need not contain "abc".
      if (next === '+') cut();
    } else cut();
  }
  cut();
  const best = runs.reduce((a, b) => (b.length > a.length ? b : a), '');
  return best.length >= 3 ? Buffer.from(best, 'latin1') : null;
}

function isWide(bytes: Buffer): boolean {
  const enc = bomEncoding(bytes);
  return enc !== undefined && enc !== 'utf-8';
}
