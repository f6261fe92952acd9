/**
 * A reference model of Edit’s steps 1 and 3–5 (matching and replacement), written from the
 * contract's words and on purpose sharing no code with src/tools/edit: a property test compares
 * the two. It works on decoded text; the caller encodes.
 */

/** `first`/`last`: the original text before `first` and from `last` on is kept as it was. */
export type EditOutcome = { ok: true; text: string; first: number; last: number } | { ok: false; code: string; matches?: number };

const CURLY: Record<string, string> = { '\u2018': "'", '\u2019': "'", '\u201C': '"', '\u201D': '"' };

/** CRLF and lone CR → LF, with each folded char's original index (and one past the end). */
function fold(text: string): { folded: string; at: number[] } {
  let folded = '';
  const at: number[] = [];
  for (let i = 0; i < text.length; i += 1) {
    at.push(i);
    if (text[i] === '\r') {
      folded += '\n';
      if (text[i + 1] === '\n') i += 1;
    } else folded += text[i];
  }
  at.push(text.length);
  return { folded, at };
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

const straighten = (s: string) => [...s].map((c) => CURLY[c] ?? c).join('');

/** Non-overlapping occurrences, scanning left to right. */
function occurrences(hay: string, needle: string): number[] {
  const out: number[] = [];
  for (let i = 0; i + needle.length <= hay.length;) {
    if (hay.startsWith(needle, i)) {
      out.push(i);
      i += needle.length;
    } else i += 1;
  }
  return out;
}

/** The file's line ending: its most common one; LF on a tie (and for a file without breaks). */
export function fileLineEnding(text: string): string {
  const crlf = text.split('\r\n').length - 1;
  const cr = text.replace(/\r\n/g, '').split('\r').length - 1;
  const lf = text.replace(/\r\n/g, '').split('\n').length - 1;
  const best = Math.max(crlf, cr, lf);
  const winners = [crlf === best && 'crlf', cr === best && 'cr', lf === best && 'lf'].filter(Boolean);
  if (winners.length > 1 || winners[0] === 'lf') return '\n';
  return winners[0] === 'crlf' ? '\r\n' : '\r';
}

/** Straight quotes of the kinds that were curly in the match become curly. */
function curl(text: string, single: boolean, double: boolean): string {
  const letter = /\p{L}/u;
  let out = '';
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    const isSingle = c === "'" && single;
    const isDouble = c === '"' && double;
    if (!isSingle && !isDouble) {
      out += c;
      continue;
    }
    const before = text[i - 1];
    const after = text[i + 1];
    if (isSingle && before !== undefined && after !== undefined && letter.test(before) && letter.test(after)) out += '\u2019';
    else if (before === undefined || /\s/u.test(before) || '([{'.includes(before)) out += isSingle ? '\u2018' : '\u201C';
    else out += isSingle ? '\u2019' : '\u201D';
  }
  return out;
}

/** Edit of an existing, read, non-notebook file whose decoded text is `text`. */
export function referenceEdit(text: string, oldString: string, newString: string, replaceAll: boolean): EditOutcome {
  if (oldString === newString) return { ok: false, code: 'NO_CHANGE' };
  if (oldString === '') return text === '' ? { ok: true, text: newString, first: 0, last: 0 } : { ok: false, code: 'FILE_EXISTS' };
  const { folded, at } = fold(text);
  const needle = fold(oldString).folded;
  let starts = occurrences(folded, needle);
  let viaQuotes = false;
  if (starts.length === 0) {
    starts = occurrences(straighten(folded), straighten(needle));
    viaQuotes = true;
  }
  if (starts.length === 0) return { ok: false, code: 'STRING_NOT_FOUND' };
  if (starts.length > 1 && !replaceAll) return { ok: false, code: 'MULTIPLE_MATCHES', matches: starts.length };
  const eol = fileLineEnding(text);
  let out = '';
  let cursor = 0;
  let first = -1;
  for (const s of starts) {
    let [from, to] = [s, s + needle.length];
    let replacement = fold(newString).folded;
    if (viaQuotes) {
      const matched = folded.slice(from, to);
      replacement = curl(replacement, /[\u2018\u2019]/.test(matched), /[\u201C\u201D]/.test(matched));
    }
    // Deleting whole line(s) not ending with a break also takes the break after (or before, at the end).
    const wholeLines = (from === 0 || folded[from - 1] === '\n') && (to === folded.length || folded[to] === '\n');
    if (newString === '' && wholeLines && !needle.endsWith('\n')) {
      if (to < folded.length) to += 1;
      else if (from > 0) from -= 1;
    }
    if (first < 0) first = at[from]!;
    out += text.slice(cursor, at[from]) + replacement.split('\n').join(eol);
    cursor = at[to]!;
  }
  out += text.slice(cursor);
  // A match that splits a surrogate pair leaves half a character: no encoding can hold it.
  if (LONE_SURROGATE.test(out)) return { ok: false, code: 'UNSUPPORTED_ENCODING' };
  return { ok: true, text: out, first, last: cursor };
}
