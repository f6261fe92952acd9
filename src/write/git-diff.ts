import { execFile } from 'node:child_process';
import fs, { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { trustedGitDir } from './git-dir.js';
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
const GIT_TIMEOUT_MS = 5000;

/**
 * The file's diff against HEAD (untracked: against empty) when it lies in a git work tree;
 * undefined otherwise, or when git is missing or fails. Never throws.
 *
 * Security: the workspace is untrusted, so its `.git/config` may name programs (diff.external,
 * textconv, core.fsmonitor, hooks). Git here only runs `cat-file` of one blob, under an
 * environment without system or global config, and the diff is computed in-process.
 */
export async function gitDiffOf(input: GitDiffInput): Promise<GitDiff | undefined> {
  try {
    const top = findWorkTree(path.dirname(input.real));
    const gitDir = top === null ? null : trustedGitDir(top, input.root);
    if (top === null || gitDir === null) return undefined;
    const rel = path.relative(top, input.real).split(path.sep).join('/');
    const head = await headBlob(top, gitDir, rel);
    if (head === undefined) return undefined;
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

let emptyHome: Promise<string> | null = null;

/** An empty folder as HOME so no ~/.gitconfig or XDG config is read. */
function cleanHome(): Promise<string> {
  emptyHome ??= fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-git-home-'));
  return emptyHome;
}

/** HEAD's blob of `rel`; null when untracked or there is no HEAD; undefined when git failed. */
async function headBlob(top: string, gitDir: string, rel: string): Promise<Buffer | null | undefined> {
  const home = await cleanHome();
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: home,
    // The checked git dir, so git does no discovery of its own.
    GIT_DIR: gitDir,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    // Security: a partial clone would fetch a missing blob through a remote the repo names.
    GIT_NO_LAZY_FETCH: '1',
    // Security: replace refs could swap in any object; the blob is HEAD's own.
    GIT_NO_REPLACE_OBJECTS: '1',
    LC_ALL: 'C',
  };
  const args = [
    '-c', `safe.directory=${top}`,
    '-c', `safe.directory=${gitDir}`,
    '-c', 'core.fsmonitor=false',
    '-c', 'core.hooksPath=/dev/null',
    '-c', 'protocol.allow=never',
    '--no-pager',
    'cat-file', 'blob', `HEAD:${rel}`,
  ];
  return new Promise((resolve) => {
    execFile('git', args, { cwd: top, env, encoding: 'buffer', maxBuffer: MAX_BLOB, timeout: GIT_TIMEOUT_MS, windowsHide: true },
      (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        const code: unknown = (err as { code?: unknown }).code;
        const why = stderr.toString('utf8');
        // Exit 128 without "not a git repository": no such path in HEAD, or no HEAD yet — the
        // file is new to git, so it is diffed against empty.
        resolve(code === 128 && !/not a git repository/i.test(why) ? null : undefined);
      });
  });
}
