import ignore, { type Ignore } from 'ignore';

/**
 * `.gitignore` / `.ignore` / `.git/info/exclude` rules as a stack of folders, matched
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

/**
 * Compiled matchers by folder and ignore-file versions (`key`), so the walks a worker runs
 * compile a folder's rules once per version of its files: compiling thousands of patterns
 * costs far more than a walk of a small folder. Least recently used dropped first.
 */
const compiled = new Map<string, Ignore | null>();
const MAX_COMPILED = 256;

/**
 * The stack with one more folder's rules, or the same stack when the folder has none. `key`
 * names the versions of the files the texts came from (their identity and mtime): the matcher
 * is then compiled once and reused by later walks in this thread.
 */
export function pushRules(stack: IgnoreStack, base: string, texts: readonly string[], key?: string): IgnoreStack {
  const cacheKey = key === undefined ? undefined : `${base}\0${key}`;
  let matcher = cacheKey === undefined ? undefined : compiled.get(cacheKey);
  if (matcher === undefined) {
    const lines = texts.flatMap((t) => t.split(/\r?\n/));
    matcher = lines.some((l) => l.trim() !== '' && !l.startsWith('#')) ? ignore({ allowRelativePaths: true }).add(lines) : null;
    if (cacheKey !== undefined) {
      compiled.set(cacheKey, matcher);
      if (compiled.size > MAX_COMPILED) compiled.delete(compiled.keys().next().value as string);
    }
  } else if (cacheKey !== undefined) {
    compiled.delete(cacheKey);
    compiled.set(cacheKey, matcher);
  }
  return matcher === null ? stack : [...stack, { base, matcher }];
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
