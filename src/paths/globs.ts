import picomatch from 'picomatch';

/**
 * Deny globs: comma-separated, commas inside `{}` do not split, anchored at the
 * root, dot files match, matched against the root-relative resolved path with `/` separators.
 */

/** Always write-denied, whatever `--deny-write` says: every repository's `.git`, nested ones too. */
export const ALWAYS_DENY_WRITE: readonly string[] = ['**/.git/**'];

/**
 * Splits `a/**,{b,c}/*.env, d` into `['a/**', '{b,c}/*.env', 'd']`.
 * Commas inside braces belong to the brace; a backslash escapes the next character
 * (so `\,` and `\{` never split or nest). Entries are trimmed; empty entries dropped.
 */
export function parseGlobList(csv: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (let i = 0; i < csv.length; i++) {
    const ch = csv[i]!;
    if (ch === '\\' && i + 1 < csv.length) {
      current += ch + csv[i + 1]!;
      i++;
      continue;
    }
    if (ch === '{') depth++;
    else if (ch === '}' && depth > 0) depth--;
    if (ch === ',' && depth === 0) {
      out.push(current);
      current = '';
      continue;
    }
    current += ch;
  }
  out.push(current);
  return out.map((g) => g.trim()).filter((g) => g.length > 0);
}

/** `/secrets/**` and `./secrets/**` mean `secrets/**`: every glob is anchored at the root anyway. */
function normalizeGlob(glob: string): string {
  let g = glob;
  while (g.startsWith('./')) g = g.slice(2);
  while (g.startsWith('/')) g = g.slice(1);
  return g;
}

/** `./a//b/` → `a/b`: the shape picomatch expects. The root itself is `''`. */
function normalizeRelative(relativePath: string): string {
  return relativePath
    .split('/')
    .filter((s) => s !== '' && s !== '.')
    .join('/');
}

/**
 * Compiles globs into one predicate over a root-relative `/`-separated path.
 * - `dot: true`: `**` and `*` match dot files and dot folders (`**\/.env`, `.git`).
 * - `nonegate: true`: a leading `!` is a literal character. A negated entry in a *deny* list
 *   would otherwise deny everything it does not name, which nobody means.
 * - `secrets/**` matches the folder `secrets` itself as well as everything under it
 *   (picomatch's rule; the conservative choice for a deny list).
 * - Case-sensitive, as the Linux file systems sidefile runs on.
 * An empty list matches nothing.
 */
export function compileGlobs(globs: readonly string[]): (relativePath: string) => boolean {
  const patterns = globs.map(normalizeGlob).filter((g) => g.length > 0);
  if (patterns.length === 0) return () => false;
  const isMatch = picomatch(patterns, { dot: true, nonegate: true });
  return (relativePath: string) => {
    const rel = normalizeRelative(relativePath);
    // The root itself is never a file a tool can act on; no glob should deny "everything" by matching ''.
    if (rel === '') return false;
    return isMatch(rel);
  };
}
