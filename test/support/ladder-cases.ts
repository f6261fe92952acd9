/**
 * The imperfect-edit corpus: seeded edits of real source files whose old_string is
 * perturbed the ways models get it wrong. Each case knows the bytes its author intended, so a
 * test can tell a landed edit from a wrong-place one. Shares no code with src/match.
 */
export const KINDS = ['quotes', 'line_numbers', 'trailing_whitespace', 'indentation', 'unicode'] as const;
export const REFUSALS = ['ambiguous', 'inconsistent'] as const;
export type Kind = (typeof KINDS)[number] | (typeof REFUSALS)[number];

export interface Case {
  /** The file as written to the workspace. */
  file: string;
  oldString: string;
  newString: string;
  /** The file after the edit its author meant. */
  intended: string;
}

const lead = (s: string) => /^[ \t]*/.exec(s)![0];

/** Straight quotes made typographic the way Edit curls them (start/space/([{ opens; letter'letter is ’). */
export function curl(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    if (c !== '"' && c !== "'") {
      out += c;
      continue;
    }
    const prev = text[i - 1];
    const next = text[i + 1];
    const letter = (x: string | undefined) => x !== undefined && /\p{L}/u.test(x);
    if (c === "'" && letter(prev) && letter(next)) out += '\u2019';
    else if (prev === undefined || /\s/u.test(prev) || '([{'.includes(prev)) out += c === "'" ? '\u2018' : '\u201C';
    else out += c === "'" ? '\u2019' : '\u201D';
  }
  return out;
}

interface Pick {
  lines: string[];
  start: number;
  count: number;
}

/** What the author means to write in place of the window: line 1 changed, one line inserted after it. */
function intendedLines(window: string[]): string[] {
  const [first, ...rest] = window;
  return [`${first} EDITED`, `${lead(first!)}inserted_line()`, ...rest];
}

const prefixed = (ls: string[], from: number) => ls.map((l, i) => `${String(from + i).padStart(6)}\u2192${l}`);
const tabsToSpaces = (ls: string[]) => ls.map((l) => lead(l).replace(/\t/g, '    ') + l.slice(lead(l).length));
const shift = (ls: string[], by: string) => ls.map((l) => (l.trim() === '' ? l : by + l));

/** The perturbed old and new text for a kind, or null when the window does not suit it. */
function perturb(kind: Kind, p: Pick, rand: () => number): { old: string[]; neu: string[]; fileWindow?: string[] } | null {
  const window = p.lines.slice(p.start, p.start + p.count);
  const neu = intendedLines(window);
  const nonBlank = window.filter((l) => l.trim() !== '').length;
  switch (kind) {
    case 'quotes': {
      if (!window.some((l) => /["']/.test(l))) return null;
      // The file has typographic quotes in the window; the model types straight ones.
      return { old: window, neu, fileWindow: curl(window.join('\n')).split('\n') };
    }
    case 'line_numbers':
      return { old: prefixed(window, p.start + 1), neu: rand() < 0.5 ? prefixed(neu, p.start + 1) : neu };
    case 'trailing_whitespace':
      return { old: window.map((l, i) => (l.trim() !== '' && (i === 0 || rand() < 0.5) ? `${l}${rand() < 0.5 ? '  ' : ' \t'}` : l)), neu };
    case 'indentation':
    case 'ambiguous': {
      if (nonBlank < 2) return null;
      if (window.some((l) => lead(l).includes('\t'))) return { old: tabsToSpaces(window), neu: tabsToSpaces(neu) };
      return { old: shift(window, '    '), neu: shift(neu, '    ') };
    }
    case 'inconsistent': {
      // Two levels added to the first non-blank line, one to the others: no one change explains it.
      if (nonBlank < 2 || window.some((l) => lead(l).includes('\t'))) return null;
      const first = window.findIndex((l) => l.trim() !== '');
      const old = window.map((l, i) => (l.trim() === '' ? l : (i === first ? '    ' : '  ') + l));
      return { old, neu };
    }
    case 'unicode': {
      const subs: Array<[RegExp, string]> = [
        [/ - /, ' \u2013 '],
        [/-/, '\u2212'],
        [/(\S) (\S)/, '$1\u00a0$2'],
        [/\.\.\./, '\u2026'],
        [/--/, '\u2014'],
      ];
      const order = [...subs].sort(() => rand() - 0.5);
      for (const [from, to] of order) {
        const j = window.findIndex((l) => from.test(l));
        if (j !== -1) return { old: window.map((l, i) => (i === j ? l.replace(from, to) : l)), neu };
      }
      return null;
    }
  }
}

/** One seeded case for `kind` on a file's lines (LF-split, final break dropped), or null. */
export function makeCase(kind: Kind, lines: string[], eol: string, finalBreak: boolean, rand: () => number): Case | null {
  const join = (ls: string[]) => ls.join(eol) + (finalBreak ? eol : '');
  for (let attempt = 0; attempt < 60; attempt += 1) {
    const count = 1 + Math.floor(rand() * 5);
    const start = Math.floor(rand() * Math.max(1, lines.length - count));
    const window = lines.slice(start, start + count);
    if (window.length < count || window.every((l) => l.trim() === '') || window.some((l) => l.length > 300)) continue;
    const exact = window.join('\n');
    const folded = lines.join('\n');
    if (folded.indexOf(exact) !== folded.lastIndexOf(exact)) continue;
    const got = perturb(kind, { lines, start, count }, rand);
    if (!got) continue;
    let fileLines = got.fileWindow ? [...lines.slice(0, start), ...got.fileWindow, ...lines.slice(start + count)] : lines;
    if (kind === 'ambiguous') fileLines = [...fileLines, '', ...window];
    const target = got.fileWindow ?? window;
    const meant = got.fileWindow ? curl(intendedLines(window).join('\n')).split('\n') : intendedLines(target);
    const intended = [...fileLines.slice(0, start), ...meant, ...fileLines.slice(start + count)];
    return { file: join(fileLines), oldString: got.old.join('\n'), newString: got.neu.join('\n'), intended: join(intended) };
  }
  return null;
}
