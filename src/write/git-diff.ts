import fs from 'node:fs';
import path from 'node:path';
import { toRelative } from '../paths/lexical.js';
import { headBlob } from './git/head-blob.js';
import { formatGitPatch, makePatchSliced } from './patch.js';

export interface GitDiff {
  patch: string;
  additions: number;
  deletions: number;
}

export interface GitDiffInput {
  /** Real path of the workspace root. */
  root: string;
  /** Real path of the file that was written. */
  real: string;
  /** Its new text; null when the file was deleted. */
  after: string | null;
  /** Decodes the HEAD blob the way the file itself is decoded. */
  decode(bytes: Buffer): string;
}

const MAX_BLOB = 64 * 1024 * 1024;

/**
 * The file's diff against HEAD (untracked: against empty) when it lies in a git work tree;
 * undefined otherwise, or when the repository cannot be read. Never throws.
 *
 * Security: the workspace is untrusted, so its `.git/config` may name programs (diff.external,
 * textconv, core.fsmonitor, hooks). No git binary runs: the HEAD blob is read in-process
 * (`src/write/git/`), every file through checked descriptors, and a read that leads outside
 * the root makes git_diff absent (SPEC §3 "Under races", §8).
 */
export async function gitDiffOf(input: GitDiffInput): Promise<GitDiff | undefined> {
  try {
    const top = findWorkTree(path.dirname(input.real));
    if (top === null) return undefined;
    const rel = toRelative(top, input.real);
    const head = await headBlob(top, input.root, rel, MAX_BLOB);
    const before = head === null ? '' : input.decode(head);
    const patch = await makePatchSliced(rel, before, input.after ?? '', 3);
    const absent = { before: head === null, after: input.after === null };
    return { patch: formatGitPatch(rel, patch.hunks, absent), additions: patch.additions, deletions: patch.deletions };
  } catch {
    return undefined;
  }
}

/**
 * Nearest folder holding `.git` (a folder, or a file as in worktrees), walking up. Sync: a
 * few cached lstat calls cost less than a thread-pool round trip each, on every write.
 */
function findWorkTree(start: string): string | null {
  let dir = start;
  for (;;) {
    if (fs.lstatSync(path.join(dir, '.git'), { throwIfNoEntry: false })) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}
