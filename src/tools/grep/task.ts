import type { MessagePort } from 'node:worker_threads';
import picomatch from 'picomatch';
import { Budget } from '../../discovery/budget.js';
import { closeSync, fstatSync } from 'node:fs';
import { openFilesIn, readFileChecked, readToEnd, TOO_LARGE } from '../../discovery/checked-fs.js';
import { Emitter } from '../../discovery/emitter.js';
import { compilePattern } from '../../discovery/patterns.js';
import { compileGlobs } from '../../paths/globs.js';
import type { GrepItem, GrepLine, GrepTask } from '../../discovery/protocol.js';
import { walkFiles, walkOne, type WalkFile } from '../../discovery/walk.js';
import { cellIdAt, cellSource, parseNotebook } from '../../notebook/model.js';
import { isNotebookPath } from '../../notebook/notebook-path.js';
import { bomBytes, decodeBytes, detectEncoding, hasWideBom } from '../../text/codec.js';
import { encodingOverrideFor } from '../../text/overrides.js';
import { scratchInScanMemory } from '../../text/control-scan.js';
import { sniffFile } from '../../text/sniff.js';
import {
  compileRegex,
  cutLine,
  LARGE_PATHS_SHOWN,
  MAX_FILE_BYTES,
  KEPT_CHARS,
  keptChars,
  lineText,
  matchingLines,
  withContext,
  type TextMatcher,
} from './search.js';
import { containsAll, requiredNeedles, type Needle } from './literal.js';
import { ownsOf } from './shard-of.js';

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
  // Files up to 1 MiB are read into one buffer, where the binary test scans them without a copy.
  const scratch = scratchInScanMemory();
  const needles = requiredNeedles(task.pattern, task.ignoreCase);
  // No deny globs: no relative path to compute per file.
  const deny = task.denyRead.length === 0 ? undefined : compileGlobs(task.denyRead);
  const search: Search = { matcher, needles, deny, keeper, out };
  const visit = (files: WalkFile[]): void => {
    const wanted = files.filter(
      (file) =>
        (globTest === null || globTest(file.relToStart)) && (typeTest === null || typeTest(file.rel.slice(file.rel.lastIndexOf('/') + 1))),
    );
    const reads = openBatch(task.root, wanted, deny);
    for (const [i, file] of wanted.entries()) {
      if (!budget.check()) {
        closeFrom(reads, i);
        return;
      }
      out.tick();
      const item =
        reads === null || file.dir === null ? searchChecked(task, file, search, scratch) : searchFd(task, file, reads[i]!, search, scratch);
      if (item !== null) out.push(item);
    }
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
  /** Texts every match contains (see requiredNeedles); empty: no prefilter. */
  needles: Needle[];
  /** Deny-read globs, checked again on each opened file's real path (undefined: none). */
  deny: ((relativeReal: string) => boolean) | undefined;
  keeper: Keeper;
  out: Emitter<GrepItem>;
}

/** A file bytes and, only when asked (files_with_matches sorts by it), its mtime. */
interface FileRead {
  bytes: Buffer;
  mtimeMs(): number;
}

/** A link or a file without its folder's descriptor: read by readFileChecked, its own descriptor checked. */
function searchChecked(task: GrepTask, file: WalkFile, search: Search, scratch: Buffer): GrepItem | null {
  const read = readFileChecked(task.root, file.at, MAX_FILE_BYTES, search.deny, scratch, 'refuse');
  if (read === TOO_LARGE) return skipLarge(file, search);
  if (read === null) return null;
  return searchFile(task, file, { bytes: read.bytes, mtimeMs: () => read.stat.mtimeMs }, search);
}

/** A file openBatch opened: read to its end, searched, its mtime taken from the same descriptor when needed, closed. */
function searchFd(task: GrepTask, file: WalkFile, fd: number | null, search: Search, scratch: Buffer): GrepItem | null {
  if (fd === null) return null;
  try {
    const bytes = readToEnd(fd, MAX_FILE_BYTES, scratch);
    if (bytes === TOO_LARGE) return skipLarge(file, search);
    return bytes === null ? null : searchFile(task, file, { bytes, mtimeMs: () => fstatSync(fd).mtimeMs }, search);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/**
 * Opens a batch's regular files through their folder's descriptor, the folder checked once for
 * the batch (openFilesIn); null where that is not available: each file is then read by
 * readFileChecked, its own descriptor checked. Links are always read that way.
 */
function openBatch(root: string, files: WalkFile[], deny: Search['deny']): Array<number | null> | null {
  const inDir = files.filter((f) => f.dir !== null);
  if (inDir.length === 0) return null;
  const fds = openFilesIn(
    root,
    inDir[0]!.dir!,
    inDir.map((f) => f.name),
    deny,
  );
  if (fds === null) return null;
  let next = 0;
  return files.map((f) => (f.dir === null ? null : fds[next++]!));
}

/** Closes the batch's descriptors that will not be read (the budget ran out). */
function closeFrom(fds: Array<number | null> | null, from: number): void {
  for (const fd of fds?.slice(from) ?? []) if (fd !== null) closeSync(fd);
}

/** A file over MAX_FILE_BYTES: counted, and named while few are. */
function skipLarge(file: WalkFile, search: Search): null {
  const stats = search.out.stats;
  stats.skippedLarge++;
  if (stats.largePaths.length < LARGE_PATHS_SHOWN) stats.largePaths.push(file.rel);
  return null;
}

function searchFile(task: GrepTask, file: WalkFile, read: FileRead, search: Search): GrepItem | null {
  const { matcher, needles, keeper, out } = search;
  // Read's rule: Grep never shows lines of a file Read refuses as binary.
  if (sniffFile(read.bytes).kind !== 'text') {
    out.stats.skippedBinary++;
    return null;
  }
  const override = encodingOverrideFor(task.encodings, file.rel);
  if (needles.length > 0 && override === undefined && !hasWideBom(read.bytes) && !containsAll(read.bytes, needles)) return null;
  let text: string;
  try {
    text = decode(read.bytes, override);
  } catch {
    return null;
  }
  const item: GrepItem = { rel: file.rel, mtimeMs: 0, count: 0, entries: 0, lines: [] };
  for (const section of sectionsOf(file.rel, text)) {
    searchSection(task, section, matcher, keeper, item);
    if (task.mode === 'files_with_matches' && item.count > 0) break;
  }
  if (item.count === 0) return null;
  if (task.mode === 'files_with_matches') item.mtimeMs = read.mtimeMs();
  return item;
}

/** A notebook that parses is searched in its cells' sources; anything else as one text. */
function sectionsOf(rel: string, text: string): Section[] {
  if (isNotebookPath(rel)) {
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

/** Read's decoding (BOM, --encodings, UTF-8, detected legacy) without its line-ending census. */
function decode(bytes: Buffer, override: string | undefined): string {
  const enc = detectEncoding(bytes, override);
  const start = enc.bom ? (bomBytes(enc.encoding)?.length ?? 0) : 0;
  return decodeBytes(bytes.subarray(start), enc.encoding);
}
