import fs from 'node:fs';
import path from 'node:path';
import type { CheckedGitFs } from './checked-fs.js';

/**
 * Where a work tree's repository is and what HEAD names, read through CheckedGitFs: the
 * `.git` folder or gitfile (`gitdir:` of linked worktrees and submodules), `commondir`, HEAD and
 * each ref on the way (loose, then `packed-refs`).
 */

const MAX_SMALL_FILE = 1024 * 1024;
const MAX_PACKED_REFS = 64 * 1024 * 1024;
const MAX_SYMREF_DEPTH = 5;

export interface GitDirs {
  /** The work tree's own git dir (HEAD, per-worktree refs). */
  gitDir: string;
  /** The shared one (objects, refs, packed-refs); the same as gitDir outside linked worktrees. */
  commonDir: string;
}

export async function gitDirsOf(fsx: CheckedGitFs, top: string): Promise<GitDirs> {
  const dotGit = path.join(top, '.git');
  let gitDir = dotGit;
  // Which kind `.git` is only picks the next read; each read is checked on what it opens.
  if (fs.statSync(dotGit).isFile()) {
    const text = (await fsx.readFile(dotGit, MAX_SMALL_FILE))?.toString('utf8') ?? '';
    const line = /^gitdir:\s*(.+)$/m.exec(text);
    if (!line?.[1]) throw new Error('not a gitfile');
    gitDir = path.resolve(top, line[1].trim());
  }
  const common = await fsx.readFile(path.join(gitDir, 'commondir'), MAX_SMALL_FILE);
  const commonDir = common === null ? gitDir : path.resolve(gitDir, common.toString('utf8').trim());
  return { gitDir, commonDir };
}

/**
 * The commit id HEAD names, or null for a branch with no commit yet. Throws for anything
 * else: no HEAD, a malformed ref, a chain too long, or ids that are not SHA-1 (a SHA-256
 * repository; a reftable's `refs/heads/.invalid` fails the name rule).
 */
export async function resolveHead(fsx: CheckedGitFs, dirs: GitDirs): Promise<string | null> {
  // Packed-refs must resolve inside the root even when a loose ref makes it unread.
  await fsx.open(path.join(dirs.commonDir, 'packed-refs'))?.close();
  let ref = 'HEAD';
  for (let depth = 0; depth <= MAX_SYMREF_DEPTH; depth += 1) {
    const text = await readLooseRef(fsx, dirs, ref);
    if (text === null) {
      if (ref === 'HEAD') throw new Error('no HEAD');
      return packedRef(fsx, dirs.commonDir, ref);
    }
    const symbolic = /^ref:\s*(\S+)\s*$/.exec(text);
    if (symbolic === null) return commitId(text);
    ref = checkedRefName(symbolic[1] as string);
  }
  throw new Error('symbolic ref chain too long');
}

/** A per-worktree ref lives in the git dir, the others in the common dir: the first found. */
async function readLooseRef(fsx: CheckedGitFs, dirs: GitDirs, ref: string): Promise<string | null> {
  const places = dirs.commonDir === dirs.gitDir ? [dirs.gitDir] : [dirs.gitDir, dirs.commonDir];
  for (const dir of places) {
    const text = await fsx.readFile(path.join(dir, ref), MAX_SMALL_FILE);
    if (text !== null) return text.toString('utf8');
  }
  return null;
}

/** Security: a ref name is a path under the git dir: never absolute, `..`, empty or dotted parts. */
function checkedRefName(name: string): string {
  const parts = name.split('/');
  if (parts[0] !== 'refs' || parts.some((p) => p === '' || p.startsWith('.') || p.includes('\\'))) {
    throw new Error('unsupported ref name');
  }
  return name;
}

function commitId(text: string): string {
  const id = text.trim();
  if (!/^[0-9a-f]{40}$/.test(id)) throw new Error('not a SHA-1 object id');
  return id;
}

/** The id `packed-refs` gives `ref`; null when it has none (a branch without commits). */
async function packedRef(fsx: CheckedGitFs, commonDir: string, ref: string): Promise<string | null> {
  const packed = await fsx.readFile(path.join(commonDir, 'packed-refs'), MAX_PACKED_REFS);
  if (packed === null) return null;
  for (const line of packed.toString('utf8').split('\n')) {
    if (line.startsWith('#') || line.startsWith('^')) continue;
    const space = line.indexOf(' ');
    if (space > 0 && line.slice(space + 1).trimEnd() === ref) return commitId(line.slice(0, space));
  }
  return null;
}
