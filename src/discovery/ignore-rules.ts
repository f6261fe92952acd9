import ignore, { type Ignore } from 'ignore';

/**
 * `.gitignore` / `.ignore` / `.git/info/exclude` rules as a stack of folders (SPEC §11), matched
 * with the `ignore` package (git's pattern rules). Choices:
 * - Deeper folders win over shallower ones; inside one folder `.ignore` wins over `.gitignore`,
 *   which wins over `.git/info/exclude` (ripgrep's order): within a folder their patterns are
 *   added to one matcher in that order, and the last matching pattern decides, as in git.
 * - A folder the walk does not enter hides what is under it, so a negation cannot re-include a
 *   file below an ignored folder (git's rule).
 * - Rules apply wherever the files are found, inside a git repository or not.
 */

export interface IgnoreLevel {
  /** The folder's path relative to the root ('' for the root). */
  base: string;
  matcher: Ignore;
}

export type IgnoreStack = readonly IgnoreLevel[];

/** The stack with one more folder's rules, or the same stack when the folder has none. */
export function pushRules(stack: IgnoreStack, base: string, texts: readonly string[]): IgnoreStack {
  const lines = texts.flatMap((t) => t.split(/\r?\n/));
  if (!lines.some((l) => l.trim() !== '' && !l.startsWith('#'))) return stack;
  return [...stack, { base, matcher: ignore({ allowRelativePaths: true }).add(lines) }];
}

/** Whether the entry at `rel` (relative to the root) is ignored; `dir` for folders (trailing-`/` rules). */
export function isIgnored(stack: IgnoreStack, rel: string, dir: boolean): boolean {
  for (let i = stack.length - 1; i >= 0; i--) {
    const level = stack[i]!;
    const sub = level.base === '' ? rel : rel.slice(level.base.length + 1);
    const verdict = level.matcher.test(dir ? `${sub}/` : sub);
    if (verdict.ignored) return true;
    if (verdict.unignored) return false;
  }
  return false;
}

/**
 * The rules that apply below a folder named explicitly as the walk's `path`: levels that would
 * ignore that folder itself are dropped, so `path: "node_modules/pkg"` searches it (ripgrep also
 * searches a path it is given, ignored or not) while the levels' other rules still apply.
 */
export function rulesBelow(stack: IgnoreStack, startRel: string): IgnoreStack {
  if (startRel === '') return stack;
  return stack.filter((level) => !isIgnored([level], startRel, true));
}
