import type { Dirent } from 'node:fs';
import { compileGlobs } from '../paths/globs.js';
import { toRelative } from '../paths/lexical.js';
import type { Budget } from './budget.js';
import { closeDir, linkedFile, listDir, lstatIn, openDirChecked, readFileChecked, TOO_LARGE, type CheckedDir } from './checked-fs.js';
import { isIgnored, pushRules, rulesBelow, type IgnoreStack } from './ignore-rules.js';

/**
 * The walk shared by Glob, Grep and LS, run inside a discovery worker. Depth first,
 * each folder's names in code-unit order (so files come out in path order, ripgrep's
 * `--sort path`). Every folder is opened and checked through checked-fs.ts before it is listed.
 */

export interface WalkOptions {
  /** Real path of the workspace root. */
  root: string;
  /** Root-relative path of the start folder ('' for the root itself), as resolved by the route. */
  startRel: string;
  denyRead: readonly string[];
  includeIgnored: boolean;
  budget: Budget;
  /** Whether files need their size and mtime (an lstat each); Grep's content mode does not. */
  needStat: boolean;
  /** Only files (and links) for which this holds are visited: a shard's share of a parallel search. */
  owns?: (rel: string) => boolean;
}

export interface WalkFile {
  /** Root-relative path under the name it was found by (a link's own name). */
  rel: string;
  /** Path relative to the start folder: what patterns are matched against. */
  relToStart: string;
  /**
   * Where it was found: the checked folder's real path + its name, or a link's checked real
   * target. Security: open it only through a check of the opened descriptor (readFileChecked),
   * which refuses it when a parent was swapped for a link since the folder was checked.
   */
  at: string;
  mtimeMs: number;
  size: number;
  /** The checked folder it was listed in (open while its batch is handled); null for a link. */
  dir: CheckedDir | null;
  name: string;
}

/** Consecutive files of one folder, in path order, while that folder is open. */
export type OnFiles = (files: WalkFile[]) => void;

export interface WalkStats {
  skippedDirs: number;
}

/** Deeper folders are counted as skipped: each level holds one descriptor open. */
const MAX_DEPTH = 256;
/**
 * Bytes read of one ignore file: past them its rules are not read (the last line cut is
 * dropped). Each pattern costs a regular expression test per path visited, so a planted
 * megabyte of patterns (20,000) made an LS of a one-file folder take seconds; 64 KiB holds
 * over a thousand rules, more than hand-written ignore files have.
 */
export const IGNORE_FILE_BYTES = 64 * 1024;
/** Files handed over at once: bounds the descriptors a batch may hold open (Grep opens a batch, then checks its folder once). */
const BATCH_FILES = 64;

interface WalkState {
  opts: WalkOptions;
  denied: (rel: string) => boolean;
  stats: WalkStats;
  onFiles: OnFiles;
  pending: WalkFile[];
}

function emit(state: WalkState, file: WalkFile): void {
  state.pending.push(file);
  if (state.pending.length >= BATCH_FILES) flush(state);
}

function flush(state: WalkState): void {
  if (state.pending.length === 0) return;
  const files = state.pending;
  state.pending = [];
  state.onFiles(files);
}

/** Walks below the start folder, handing over each visible regular file (and link to one) in batches. */
export function walkFiles(opts: WalkOptions, onFiles: OnFiles): WalkStats {
  const state: WalkState = { opts, denied: compileGlobs(opts.denyRead), stats: { skippedDirs: 0 }, onFiles, pending: [] };
  const start = openStartCounted(opts, state.stats);
  if (start === null) return state.stats;
  try {
    visitDir(state, start.dir, opts.startRel, start.rules, 0);
  } finally {
    closeDir(start.dir);
  }
  return state.stats;
}

/** openStart, with a folder on the way that cannot be read (EACCES…) counted as skipped. */
function openStartCounted(opts: WalkOptions, stats: WalkStats): OpenedStart | null {
  try {
    return openStart(opts);
  } catch (err) {
    if (typeof (err as NodeJS.ErrnoException).code !== 'string') throw err;
    stats.skippedDirs++;
    return null;
  }
}

export interface OpenedStart {
  dir: CheckedDir;
  /** Ignore rules of the folders from the root down to (not including) the start folder. */
  rules: IgnoreStack;
}

/**
 * Opens the start folder by descending from the root through checked descriptors, reading the
 * ignore files of the folders above it on the way. null when a folder on the way is no longer
 * a folder inside the root (a swap since the route resolved it): nothing is listed.
 */
export function openStart(opts: Pick<WalkOptions, 'root' | 'startRel' | 'includeIgnored'>): OpenedStart | null {
  let dir = openDirChecked(opts.root, opts.root);
  if (dir === null) return null;
  let rules: IgnoreStack = [];
  const names = opts.startRel === '' ? [] : opts.startRel.split('/');
  for (let i = 0; i < names.length; i++) {
    if (!opts.includeIgnored) rules = withFolderRules(opts.root, dir, names.slice(0, i).join('/'), rules, null);
    let next: CheckedDir | null;
    try {
      next = openDirChecked(opts.root, dir.at(names[i]!));
    } finally {
      closeDir(dir);
    }
    if (next === null) return null;
    dir = next;
  }
  return { dir, rules: rulesBelow(rules, opts.startRel) };
}

/** The stack with this folder's `.git/info/exclude`, `.gitignore` and `.ignore` rules, in that order (`names`: the folder's names, or at least those starting with a dot; null: look for each). */
export function withFolderRules(root: string, dir: CheckedDir, rel: string, rules: IgnoreStack, names: Set<string> | null): IgnoreStack {
  const texts: string[] = [];
  const versions: string[] = [];
  for (const name of ['.git/info/exclude', '.gitignore', '.ignore']) {
    const first = name.split('/')[0]!;
    if (names !== null && !names.has(first)) continue;
    const file = readFileChecked(root, dir.at(name), IGNORE_FILE_BYTES);
    if (file === null || file === TOO_LARGE) continue;
    texts.push(ignoreText(file.bytes, file.stat.size));
    const { dev, ino, size, mtimeMs, ctimeMs } = file.stat;
    versions.push(`${name}:${dev}:${ino}:${size}:${mtimeMs}:${ctimeMs}`);
  }
  return texts.length === 0 ? rules : pushRules(rules, rel, texts, versions.join('|'));
}

/** An ignore file's text; one cut at IGNORE_FILE_BYTES ends at its last whole line. */
function ignoreText(bytes: Buffer, size: number): string {
  if (size <= bytes.length) return bytes.toString('utf8');
  return bytes.toString('utf8', 0, bytes.lastIndexOf(10) + 1);
}

/** The folder's names that start with a dot: where its ignore files and `.git` can be (a set of all names costs a hash per entry). */
export function dotNames(entries: Dirent[]): Set<string> {
  const names = new Set<string>();
  for (const entry of entries) if (entry.name.charCodeAt(0) === 0x2e) names.add(entry.name);
  return names;
}

function visitDir(state: WalkState, dir: CheckedDir, rel: string, inherited: IgnoreStack, depth: number): void {
  const { opts } = state;
  let entries: Dirent[];
  try {
    entries = listDir(dir);
  } catch {
    state.stats.skippedDirs++;
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const rules = opts.includeIgnored ? inherited : withFolderRules(opts.root, dir, rel, inherited, dotNames(entries));
  try {
    visitEntries(state, dir, rel, entries, rules, depth);
  } finally {
    // This folder's last files, while it is still open.
    flush(state);
  }
}

function visitEntries(state: WalkState, dir: CheckedDir, rel: string, entries: Dirent[], rules: IgnoreStack, depth: number): void {
  const { opts } = state;
  for (const entry of entries) {
    if (!opts.budget.visit()) return;
    // Security: a repository's internals are never entered nor listed.
    if (entry.name === '.git') continue;
    const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
    // Security: a deny-read glob makes the entry invisible (never listed, searched, or counted).
    if (state.denied(childRel)) continue;
    const kind = kindOf(dir, entry);
    if (kind === 'other') continue;
    if (kind !== 'dir' && opts.owns !== undefined && !opts.owns(childRel)) continue;
    if (!opts.includeIgnored && isIgnored(rules, childRel, kind === 'dir')) continue;
    if (kind === 'dir') {
      // Files before the folder first: the batches keep path order.
      flush(state);
      enterDir(state, dir, entry.name, childRel, rules, depth);
    } else if (kind === 'file') visitFile(state, dir, entry.name, childRel);
    else visitLink(state, dir, entry.name, childRel);
  }
}

function enterDir(state: WalkState, parent: CheckedDir, name: string, rel: string, rules: IgnoreStack, depth: number): void {
  if (depth + 1 >= MAX_DEPTH) {
    state.stats.skippedDirs++;
    return;
  }
  let child: CheckedDir | null;
  try {
    // Security: opened through the parent's checked descriptor, no link followed, real path checked.
    child = openDirChecked(state.opts.root, parent.at(name));
  } catch {
    state.stats.skippedDirs++;
    return;
  }
  if (child === null) return;
  try {
    visitDir(state, child, rel, rules, depth + 1);
  } finally {
    closeDir(child);
  }
}

function visitFile(state: WalkState, dir: CheckedDir, name: string, rel: string): void {
  let mtimeMs = 0;
  let size = 0;
  if (state.opts.needStat) {
    const st = lstatIn(dir, name);
    if (st === null || !st.isFile()) return;
    mtimeMs = st.mtimeMs;
    size = st.size;
  }
  emit(state, { rel, relToStart: relToStart(state.opts.startRel, rel), at: realChild(dir, name), mtimeMs, size, dir, name });
}

/**
 * The real path of a name in a checked folder. Opening this costs a third less than the
 * descriptor path `dir.at(name)` (procfs lookups); the descriptor check after the open is what
 * makes it safe, as for Read (openFileDirect).
 */
function realChild(dir: CheckedDir, name: string): string {
  return dir.real === '/' ? `/${name}` : `${dir.real}/${name}`;
}

/** A link is listed under its own name when it leads to a regular file inside the root. */
function visitLink(state: WalkState, dir: CheckedDir, name: string, rel: string): void {
  const target = linkedFile(state.opts.root, dir, name);
  if (target === null) return;
  // Security: deny globs hold for the target's real path too, so a link cannot expose a denied file.
  if (state.denied(toRelative(state.opts.root, target.real))) return;
  const { mtimeMs, size } = target.stat;
  emit(state, { rel, relToStart: relToStart(state.opts.startRel, rel), at: target.real, mtimeMs, size, dir: null, name });
}

type EntryKind = 'dir' | 'file' | 'link' | 'other';

function kindOf(dir: CheckedDir, entry: Dirent): EntryKind {
  if (entry.isDirectory()) return 'dir';
  if (entry.isFile()) return 'file';
  if (entry.isSymbolicLink()) return 'link';
  if (entry.isFIFO() || entry.isSocket() || entry.isBlockDevice() || entry.isCharacterDevice()) return 'other';
  // DT_UNKNOWN (some file systems): ask lstat.
  const st = lstatIn(dir, entry.name);
  if (st === null) return 'other';
  if (st.isDirectory()) return 'dir';
  if (st.isFile()) return 'file';
  return st.isSymbolicLink() ? 'link' : 'other';
}

export function relToStart(startRel: string, rel: string): string {
  return startRel === '' ? rel : rel.slice(startRel.length + 1);
}

/**
 * Grep's `path` naming one file: that file alone, opened through its folder's checked
 * descriptor (ignore rules do not apply to a file named explicitly; deny globs were checked
 * by the route). `opts.startRel` is the file's folder.
 */
export function walkOne(opts: WalkOptions, name: string, onFiles: OnFiles): WalkStats {
  const state: WalkState = { opts, denied: compileGlobs(opts.denyRead), stats: { skippedDirs: 0 }, onFiles, pending: [] };
  const start = openStartCounted({ ...opts, includeIgnored: true }, state.stats);
  if (start === null) return state.stats;
  try {
    const rel = opts.startRel === '' ? name : `${opts.startRel}/${name}`;
    if (!state.denied(rel)) visitFile(state, start.dir, name, rel);
    flush(state);
  } finally {
    closeDir(start.dir);
  }
  return state.stats;
}
