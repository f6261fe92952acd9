import { constants, promises as fsp } from 'node:fs';
import path from 'node:path';
import { isIgnored, pushRules, type IgnoreStack } from '../discovery/ignore-rules.js';
import { IGNORE_FILE_BYTES } from '../discovery/walk.js';
import { FD_CHECKS } from '../paths/fd-policy.js';
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Whether Glob would skip a path as ignored (`.gitignore`, `.ignore`, `.git/info/exclude`, as
 * discovery reads them), for outside-change events. Each folder's rules are read and compiled
 * once and cached (bounded); a change to a rule file drops the cache. This runs on the event
 * loop, so a rule file is read as discovery reads it: at most IGNORE_FILE_BYTES, cut at its last
 * whole line — compiling a planted 1 MiB `.gitignore` for every event held the loop for seconds.
 */
const RULE_FILES = ['.gitignore', '.ignore'];
const MAX_FOLDERS = 20_000;

export class IgnoreOracle {
  /** A folder's own level of rules (empty when it has none). */
  private readonly levels = new Map<string, Promise<IgnoreStack>>();

  constructor(private readonly root: string) {}

  /** Call for every changed path: a rule file's change drops what was cached. */
  noteChange(rel: string): void {
    const name = rel.slice(rel.lastIndexOf('/') + 1);
    if (RULE_FILES.includes(name) || rel.endsWith('.git/info/exclude')) this.levels.clear();
  }

  /** `folder`: the path is a folder (trailing-`/` rules apply). */
  async ignored(rel: string, folder = false): Promise<boolean> {
    const parts = rel.split('/');
    let stack: IgnoreStack = await this.levelAt([], '');
    for (let i = 1; i < parts.length; i++) {
      const folder = parts.slice(0, i).join('/');
      // A folder the walk does not enter hides everything under it (git's rule).
      if (isIgnored(stack, folder, true)) return true;
      stack = await this.levelAt(stack, folder);
    }
    return isIgnored(stack, rel, folder);
  }

  private async levelAt(stack: IgnoreStack, folder: string): Promise<IgnoreStack> {
    const level = await this.levelOf(folder);
    return level.length === 0 ? stack : [...stack, ...level];
  }

  private levelOf(folder: string): Promise<IgnoreStack> {
    let level = this.levels.get(folder);
    if (level === undefined) {
      if (this.levels.size >= MAX_FOLDERS) this.levels.clear();
      const dir = path.join(this.root, folder);
      // Discovery's order within a folder: .git/info/exclude, then .gitignore, then .ignore.
      // Security: only a yes/no about paths comes of these files; their text is never sent.
      const files = ['.git/info/exclude', ...RULE_FILES].map((f) => path.join(dir, f));
      level = Promise.all(files.map(ruleText)).then((texts) => compileInSlices(folder, texts));
      this.levels.set(folder, level);
    }
    return level;
  }
}

/** Patterns compiled per turn of the event loop: a few milliseconds' work. */
const PATTERNS_PER_SLICE = 100;

/**
 * One folder's rules as several matchers of PATTERNS_PER_SLICE patterns each, compiled one per
 * turn (the `ignore` package compiles its patterns at the first test: 64 KiB of them took
 * ~200 ms in one turn). The stack tries the later matchers first and the first one that has a
 * verdict decides, which is git's "the last matching pattern wins" across the pieces.
 */
async function compileInSlices(folder: string, texts: string[]): Promise<IgnoreStack> {
  const lines = texts.flatMap((t) => t.split(/\r?\n/)).filter((l) => l.trim() !== '' && !l.startsWith('#'));
  let level: IgnoreStack = [];
  const probe = folder === '' ? PROBE : `${folder}/${PROBE}`;
  for (let at = 0; at < lines.length; at += PATTERNS_PER_SLICE) {
    level = pushRules(level, folder, [lines.slice(at, at + PATTERNS_PER_SLICE).join('\n')]);
    isIgnored(level.slice(-1), probe, false);
    if (at + PATTERNS_PER_SLICE < lines.length) await nextTurn();
  }
  return level;
}

const PROBE = '.sidefile-compile-probe';

/**
 * A rule file's text as discovery takes it: a regular file, not through a link (neither its
 * own name nor a folder on its way), at most
 * IGNORE_FILE_BYTES cut at its last whole line; anything else is no rules. Security: opened
 * without blocking, so a FIFO planted as `.gitignore` cannot hold a thread-pool thread.
 */
async function ruleText(file: string): Promise<string> {
  let handle: fsp.FileHandle | undefined;
  try {
    handle = await fsp.open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    // Security: O_NOFOLLOW guards the last name only. A folder on the way (`.git/info`, a
    // parent) swapped for a link would lead the open elsewhere: the descriptor must be the file
    // asked for, by its real path, or its rules are not taken.
    const real = FD_CHECKS ? await fsp.readlink(`/proc/self/fd/${handle.fd}`) : await fsp.realpath(file);
    if (real !== file) return '';
    const stat = await handle.stat();
    if (!stat.isFile()) return '';
    const buffer = Buffer.alloc(Math.min(stat.size, IGNORE_FILE_BYTES));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const bytes = buffer.subarray(0, bytesRead);
    return stat.size <= bytesRead ? bytes.toString('utf8') : bytes.toString('utf8', 0, bytes.lastIndexOf(10) + 1);
  } catch {
    return '';
  } finally {
    await handle?.close().catch(() => {});
  }
}
