import fs from 'node:fs';
import path from 'node:path';
import { isInside } from './resolve-sync.js';

/**
 * SPEC §8: `git_diff` only when everything git reads resolves inside the root — here the
 * `objects/` folder and **every** entry under it: the fan-out folders, each loose object,
 * `pack/` and its files, `info/alternates` (and the object folders it names, in turn).
 *
 * Security: one symlinked fan-out folder (`objects/ab → /elsewhere/.git/objects/ab`) is
 * enough for `git cat-file` to read another repository's content, so nothing is sampled: every
 * entry is looked at. The walk is bounded by MAX_OBJECT_ENTRIES (a larger store gives no
 * git_diff), and its verdict is cached per folder, keyed by the mtimes of the folders walked:
 * planting or replacing an entry changes its folder's mtime, so a cached verdict is never stale.
 */
export const MAX_OBJECT_ENTRIES = 200_000;
const MAX_ALTERNATE_DEPTH = 5;

interface Verdict {
  /** Folder → mtimeMs when walked: the verdict holds while none of them changed. */
  dirs: Map<string, number>;
  inside: boolean;
}

const cache = new Map<string, Verdict>();
const MAX_CACHED = 64;

/** True when the object folder (real path) and everything under it lies inside `root`. */
export function objectsInside(objects: string, root: string, depth = 0): boolean {
  if (depth > MAX_ALTERNATE_DEPTH) return false;
  if (!fs.existsSync(objects)) return true;
  const real = fs.realpathSync.native(objects);
  if (!isInside(root, real)) return false;
  const key = `${root}\0${real}`;
  const hit = cache.get(key);
  if (hit !== undefined && stillFresh(hit)) return hit.inside && alternatesInside(real, root, depth);
  const verdict = walk(real, root);
  cache.delete(key);
  cache.set(key, verdict);
  if (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value as string);
  return verdict.inside && alternatesInside(real, root, depth);
}

function stillFresh(verdict: Verdict): boolean {
  for (const [dir, mtime] of verdict.dirs) {
    const st = fs.lstatSync(dir, { throwIfNoEntry: false });
    if (st === undefined || !st.isDirectory() || st.mtimeMs !== mtime) return false;
  }
  return true;
}

/** Every entry under `dir`: a link must resolve inside the root; folders are walked too. */
function walk(objects: string, root: string): Verdict {
  const dirs = new Map<string, number>();
  const todo = [objects];
  let entries = 0;
  while (todo.length > 0) {
    const dir = todo.pop() as string;
    dirs.set(dir, fs.lstatSync(dir).mtimeMs);
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      entries += 1;
      if (entries > MAX_OBJECT_ENTRIES) return { dirs, inside: false };
      const full = path.join(dir, entry.name);
      if (entry.isSymbolicLink()) {
        // Security: a link anywhere under objects/ must stay in the workspace.
        const target = realOrNull(full);
        if (target === null || !isInside(root, target)) return { dirs, inside: false };
        if (fs.statSync(target).isDirectory()) todo.push(target);
      } else if (entry.isDirectory()) {
        todo.push(full);
      }
    }
  }
  return { dirs, inside: true };
}

/** `info/alternates` names more object folders: each must pass the same check. */
function alternatesInside(objects: string, root: string, depth: number): boolean {
  let text: string;
  try {
    text = fs.readFileSync(path.join(objects, 'info', 'alternates'), 'utf8');
  } catch {
    return true;
  }
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .every((l) => {
      const target = realOrNull(path.resolve(objects, l));
      return target !== null && objectsInside(target, root, depth + 1);
    });
}

function realOrNull(file: string): string | null {
  try {
    return fs.realpathSync.native(file);
  } catch {
    return null;
  }
}
