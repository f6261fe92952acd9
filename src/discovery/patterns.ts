import picomatch from 'picomatch';
import { ToolError } from '../errors.js';

/**
 * Glob's `pattern` and Grep's `glob`: `.gitignore` syntax, matched with picomatch.
 * - No `/` other than a trailing one: the pattern matches a name at any depth (`*.py`), so it is
 *   tested against the file's name alone (the same answer as `**\/*.py`, and cheaper).
 * - With a `/`: anchored at the walk's `path` (`src/**\/*.ts`), tested against the path relative to it.
 * - A trailing `/` names a folder: `build/` matches every file under a folder named `build`.
 * - Dot files match (`dot`); case-sensitive; `!` and extglobs are literal characters (not
 *   `.gitignore` syntax for one pattern); `{a,b}`, `[…]`, `[!…]`, `?`, `**` as usual.
 */

/** A compiled pattern: tests a path relative to the walk's `path` (`/` separators). */
export type PathTest = (relToStart: string) => boolean;

const OPTIONS = { dot: true, nonegate: true, noext: true } as const;

/** Compiles `pattern`; INVALID_INPUT naming `field` for a leading `/` or a `..` segment. */
export function compilePattern(pattern: string, field: string): PathTest {
  if (pattern.trim() === '') invalid(field, `${field} is empty; give a glob such as "**/*.ts".`);
  if (pattern.startsWith('/')) {
    invalid(field, `${field} must be relative to path: drop the leading "/" (patterns are anchored at path already).`);
  }
  if (pattern.split('/').includes('..')) {
    invalid(field, `${field} must not contain a ".." segment; set path to the folder to search instead.`);
  }
  const folder = pattern.endsWith('/');
  const body = bracketNegation(folder ? pattern.replace(/\/+$/, '') : pattern);
  if (body === '') invalid(field, `${field} names no file; give a glob such as "**/*.ts".`);
  if (!body.includes('/')) {
    const isName = picomatch(body, OPTIONS);
    if (!folder) return (rel) => isName(rel.slice(rel.lastIndexOf('/') + 1));
    // Any folder on the way (not the file's own name) matching the name.
    return (rel) => {
      const parts = rel.split('/');
      for (let i = 0; i < parts.length - 1; i++) if (isName(parts[i]!)) return true;
      return false;
    };
  }
  const isPath = picomatch(folder ? `${body}/**` : body, OPTIONS);
  return (rel) => isPath(rel);
}

/** `.gitignore`'s `[!abc]` is picomatch's `[^abc]` (picomatch reads `[!a]` as "! or a"). */
function bracketNegation(glob: string): string {
  return glob.replace(/(^|[^\\])\[!/g, '$1[^');
}

/** INVALID_INPUT in the route's shape: `details.fields` names the field and why. */
export function invalid(field: string, message: string): never {
  throw new ToolError('INVALID_INPUT', message, { fields: [{ field, message }] });
}
