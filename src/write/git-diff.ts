import fs from 'node:fs';
import path from 'node:path';
import { isInside, toRelative } from '../paths/lexical.js';
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
  /** Its new text, decoded when asked (outside a work tree, never); null when the file was deleted. */
  after(): string | null;
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
 * the root makes git_diff absent ("Under races").
 */
export async function gitDiffOf(input: GitDiffInput): Promise<GitDiff | undefined> {
  try {
    const top = findWorkTree(path.dirname(input.real), input.root);
    if (top === null) return undefined;
    const rel = toRelative(top, input.real);
    const head = await headBlob(top, input.root, rel, MAX_BLOB);
    const before = head === null ? '' : input.decode(head);
    const after = input.after();
    const patch = await makePatchSliced(rel, before, after ?? '', 3);
    const absent = { before: head === null, after: after === null };
    return { patch: formatGitPatch(rel, patch.hunks, absent), additions: patch.additions, deletions: patch.deletions };
  } catch {
    return undefined;
  }
}

/** How long a walk above the root is trusted: those folders are the operator's and rarely change. */
export const ABOVE_ROOT_TTL_MS = 1_000;
let aboveRoot: { root: string; top: string | null; until: number } | null = null;

/**
 * Nearest folder holding `.git` (a folder, or a file as in worktrees), walking up. Sync: a
 * few cached lstat calls cost less than a thread-pool round trip each, on every write. Inside
 * the root every folder is looked at on every write (the agent may `git init` at any time);
 * the answer above the root is kept for ABOVE_ROOT_TTL_MS (1 to 4 lstat calls saved per write).
 */
export function findWorkTree(start: string, root: string, now = Date.now()): string | null {
  const inside = nearestGit(start, root);
  if (inside !== null || !isInside(root, start)) return inside;
  if (aboveRoot === null || aboveRoot.root !== root || now >= aboveRoot.until) {
    const parent = path.dirname(root);
    aboveRoot = { root, top: parent === root ? null : nearestGit(parent), until: now + ABOVE_ROOT_TTL_MS };
  }
  return aboveRoot.top;
}

/** First folder from `start` up holding `.git`, looking no higher than `last` (absent: the top). */
function nearestGit(start: string, last?: string): string | null {
  for (let dir = start; ;) {
    if (fs.lstatSync(path.join(dir, '.git'), { throwIfNoEntry: false })) return dir;
    const parent = path.dirname(dir);
    if (dir === last || parent === dir) return null;
    dir = parent;
  }
}
