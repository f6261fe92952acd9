import path from 'node:path';
import { ToolError } from '../errors.js';

/**
 * The contract's lexical checks: decided on the string alone, before any file system access.
 *
 * Decisions (each tested in lexical.test.ts):
 * - A relative path is relative to the root; an absolute one must lie inside it.
 * - `..` is resolved lexically, before links are looked at (`a/../b` is `b` even when `a` is
 *   a link). A `..` that climbs above the root at ANY step is refused, even when a later name
 *   would come back in (`../ws/a.txt`, `/srv/ws/../ws/a.txt`): such a path is only useful for
 *   probing the root's name, and refusing it keeps the rule simple.
 * - The empty path and `.` are the root itself. That is allowed here: the route answers
 *   NOT_A_FILE for it, which is the more useful message.
 * - A backslash is an ordinary character in a POSIX name (`a\b` is one name), except that a
 *   path starting with two separators of either kind (`\\host\share`, `//host/share`, `/\x`)
 *   is a UNC form and refused.
 * - A trailing `/` is dropped (`dir/` is `dir`).
 * - Input over PATH_MAX (4096 bytes) is INVALID_INPUT, not a path check: it is a malformed body.
 */

const OUTSIDE_HINT = 'Use a path inside the workspace, relative to its root.';

/** Linux's PATH_MAX. Longer input is refused up front: it could never name a file, and a huge one only costs CPU. */
export const MAX_PATH_BYTES = 4096;

/** True when `p` (absolute, normalized) is the root or lies inside it. Sibling prefixes (`/srv/ws-evil`) are not inside `/srv/ws`. */
export function isInside(root: string, p: string): boolean {
  if (p === root) return true;
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  return p.startsWith(prefix);
}

/** Root-relative path with `/` separators; `.` for the root itself. `p` must be inside `root`. */
export function toRelative(root: string, p: string): string {
  const rel = path.relative(root, p);
  return rel === '' ? '.' : rel.split(path.sep).join('/');
}

/**
 * How an offending input is named in a message. Security: an absolute input is never echoed
 * (it may spell the root's absolute path or an outside path), nor one that spells the root's
 * path inside it (`../../srv/ws/x`); control characters are masked.
 */
export function describeInput(input: string, root = ''): string {
  if (path.isAbsolute(input)) return 'This absolute path';
  if (root.length > 1 && input.includes(root.slice(1))) return 'This path';
  return `"${showName(input)}"`;
}

/** A root-relative name as a message shows it: control characters masked, long names cut. */
export function showName(relative: string): string {
  // eslint-disable-next-line no-control-regex -- masking control characters is the point
  const clean = relative.replace(/[\u0000-\u001f\u007f]/g, '?');
  return clean.length > 200 ? `${clean.slice(0, 200)}…` : clean;
}

function outside(root: string, input: string, why: string): ToolError {
  return new ToolError('PATH_OUTSIDE_WORKSPACE', `${describeInput(input, root)} ${why}. ${OUTSIDE_HINT}`);
}

/**
 * Returns the absolute lexical path of `input` inside `root`, or throws
 * `PATH_OUTSIDE_WORKSPACE`. Touches no file system.
 */
export function checkLexical(root: string, input: string): string {
  const base = path.resolve(root);
  if (Buffer.byteLength(input, 'utf8') > MAX_PATH_BYTES) {
    throw new ToolError('INVALID_INPUT', `The path is longer than ${MAX_PATH_BYTES} bytes; no file can have such a path.`);
  }
  // Security: a NUL byte would truncate the path in C and is never part of a real name.
  if (input.includes('\0')) {
    throw new ToolError('PATH_OUTSIDE_WORKSPACE', `The path contains a NUL byte. ${OUTSIDE_HINT}`);
  }
  // Security: UNC forms name another host's share; `//x` is also implementation-defined in POSIX.
  if (/^[\\/]{2}/.test(input)) {
    throw new ToolError('PATH_OUTSIDE_WORKSPACE', `UNC paths (\\\\host\\share, //host/share) are not allowed. ${OUTSIDE_HINT}`);
  }
  const names = path.isAbsolute(input) ? namesUnderRoot(base, input) : input.split('/');
  const kept: string[] = [];
  for (const name of names) {
    if (name === '' || name === '.') continue;
    if (name === '..') {
      // Security: climbing above the root at any step is an escape, whatever follows.
      if (kept.length === 0) throw outside(base, input, 'climbs out of the workspace with ".."');
      kept.pop();
      continue;
    }
    kept.push(name);
  }
  return kept.length === 0 ? base : path.join(base, ...kept);
}

/** The names of an absolute input after the root's own names; throws when it does not start with them. */
function namesUnderRoot(root: string, input: string): string[] {
  const inputNames = input.split('/').filter((n) => n !== '' && n !== '.');
  const rootNames = root.split('/').filter((n) => n !== '');
  // Security: compared name by name, so `/srv/ws-evil`, `/srv/ws2` and `/srv/ws.bak` are not `/srv/ws`.
  const under = rootNames.every((n, i) => inputNames[i] === n);
  if (!under) throw outside(root, input, 'is outside the workspace');
  return inputNames.slice(rootNames.length);
}
