/**
 * A reference model of the contract's ladder for the imperfect-edit corpus, written from the
 * contract's words and on purpose sharing no code with src/match: a slow, brute-force reading
 * (every window compared, every candidate change tried) that the fast implementation must agree
 * with. Rungs 1–2 come from test/support/edit-model.ts (the contract's reference).
 */
import { fileLineEnding, referenceEdit } from './edit-model.js';

export type LadderOutcome = { ok: true; text: string; rung: string } | { ok: false; code: string; rung?: string; lines?: number[] };

const LINE_RUNGS = ['line_numbers', 'trailing_whitespace', 'indentation', 'unicode'] as const;
type LineRung = (typeof LINE_RUNGS)[number];

const READ_PREFIX = /^ *[0-9]+(\u2192|\t)/;
const rtrim = (s: string) => s.replace(/[ \t]*$/, '');
const lead = (s: string) => /^[ \t]*/.exec(s)![0];
const blank = (s: string) => s.trim() === '';

function lookalikes(s: string): string {
  let out = '';
  for (const c of s) {
    const cp = c.codePointAt(0)!;
    if (cp === 0xa0 || cp === 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp === 0x202f || cp === 0x205f || cp === 0x3000) out += ' ';
    else if ((cp >= 0x2010 && cp <= 0x2015) || cp === 0x2212 || cp === 0xfe58 || cp === 0xfe63 || cp === 0xff0d) out += '-';
    else if ('\u2018\u2019\u201A\u201B\u2032'.includes(c)) out += "'";
    else if ('\u201C\u201D\u201E\u201F\u2033'.includes(c)) out += '"';
    else if (c === '\u2026') out += '...';
    else out += c;
  }
  return out;
}

/** Visual columns of an indentation at a tab width. */
function cols(ws: string, width: number): number {
  let c = 0;
  for (const ch of ws) c = ch === '\t' ? (Math.floor(c / width) + 1) * width : c + 1;
  return c;
}

/** An indentation change: `strict` maps an old line's indentation (null: not this change); `lenient` re-indents new lines. */
interface Change {
  strict(ws: string): string | null;
  lenient(ws: string): string;
}

/** Every change allows, tried on one window: the first that maps every old indentation to the file's. */
function indentChange(pairs: Array<[file: string, old: string]>): Change | null {
  if (pairs.length === 0) return null;
  const [f0, o0] = pairs[0]!;
  const candidates: Change[] = [];
  if (f0.endsWith(o0)) {
    const p = f0.slice(0, f0.length - o0.length);
    candidates.push({ strict: (ws) => p + ws, lenient: (ws) => p + ws });
  }
  if (o0.endsWith(f0)) {
    const p = o0.slice(0, o0.length - f0.length);
    candidates.push({
      strict: (ws) => (ws.startsWith(p) ? ws.slice(p.length) : null),
      lenient: (ws) => (ws.startsWith(p) ? ws.slice(p.length) : ws.slice(commonPrefix(ws, p))),
    });
  }
  // Tabs for spaces at one width, the columns kept: the old side all spaces and the file
  // written with tabs, or the file all spaces and the old side written with tabs.
  const oldSpaces = pairs.every(([, o]) => !o.includes('\t'));
  const fileSpaces = pairs.every(([f]) => !f.includes('\t'));
  if (oldSpaces || fileSpaces) {
    const tabs = oldSpaces;
    for (const width of [4, 8, 2]) {
      const render = (ws: string) => {
        const c = cols(ws, width);
        return tabs ? '\t'.repeat(Math.floor(c / width)) + ' '.repeat(c % width) : ' '.repeat(c);
      };
      candidates.push({ strict: render, lenient: render });
    }
  }
  return candidates.find((change) => pairs.every(([f, o]) => change.strict(o) === f)) ?? null;
}

function commonPrefix(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i += 1;
  return i;
}

interface Fit {
  start: number;
  change: Change | null;
}

function fitsAt(rung: LineRung, file: string[], old: string[]): Fit[] {
  let oldCmp = old;
  if (rung === 'line_numbers') {
    if (!old.every((l) => READ_PREFIX.test(l))) return [];
    oldCmp = old.map((l) => l.replace(READ_PREFIX, ''));
  }
  const key = (l: string): string => {
    if (rung === 'trailing_whitespace') return rtrim(l);
    if (rung === 'indentation') return l.trim() === '' ? '' : l.replace(/^[ \t]+/, '').replace(/[ \t]+$/, '');
    if (rung === 'unicode') return rtrim(lookalikes(l));
    return l;
  };
  const out: Fit[] = [];
  for (let s = 0; s + old.length <= file.length; s += 1) {
    let same = true;
    for (let j = 0; j < old.length && same; j += 1) same = key(file[s + j]!) === key(oldCmp[j]!);
    if (!same) continue;
    if (rung !== 'indentation') {
      out.push({ start: s, change: null });
      continue;
    }
    const pairs: Array<[string, string]> = [];
    old.forEach((o, j) => {
      if (!blank(o) && !blank(file[s + j]!)) pairs.push([lead(file[s + j]!), lead(o)]);
    });
    const change = indentChange(pairs);
    if (change) out.push({ start: s, change });
  }
  return out;
}

function rewrite(rung: LineRung, fit: Fit, newText: string): string {
  const finalBreak = newText.endsWith('\n');
  const body = finalBreak ? newText.slice(0, -1) : newText;
  if (body === '' && !finalBreak) return '';
  let lines = body.split('\n');
  if (rung === 'line_numbers' && lines.every((l) => READ_PREFIX.test(l))) lines = lines.map((l) => l.replace(READ_PREFIX, ''));
  if (rung === 'indentation') lines = lines.map((l) => (blank(l) ? l : fit.change!.lenient(lead(l)) + l.slice(lead(l).length)));
  return lines.join('\n') + (finalBreak ? '\n' : '');
}

/** The ladder on an existing, read file's decoded text. */
export function referenceLadder(text: string, oldString: string, newString: string, replaceAll: boolean): LadderOutcome {
  const first = referenceEdit(text, oldString, newString, replaceAll);
  if (first.ok) return { ok: true, text: first.text, rung: rungOneOrTwo(text, oldString) };
  if (first.code === 'MULTIPLE_MATCHES')
    return { ok: false, code: first.code, rung: rungOneOrTwo(text, oldString), lines: firstLines(text, oldString) };
  if (first.code !== 'STRING_NOT_FOUND') return { ok: false, code: first.code };
  // Line breaks folded, with each folded char's original index, as Edit's matching does.
  const at: number[] = [];
  let folded = '';
  for (let i = 0; i < text.length; i += 1) {
    at.push(i);
    folded += text[i] === '\r' ? '\n' : text[i];
    if (text[i] === '\r' && text[i + 1] === '\n') i += 1;
  }
  at.push(text.length);
  const oldF = oldString.replace(/\r\n?/g, '\n');
  const newF = newString.replace(/\r\n?/g, '\n');
  const endsBreak = oldF.endsWith('\n');
  const old = (endsBreak ? oldF.slice(0, -1) : oldF).split('\n');
  const all = folded.split('\n');
  const file = folded.endsWith('\n') ? all.slice(0, -1) : all;
  const starts: number[] = [];
  let off = 0;
  for (const l of all) {
    starts.push(off);
    off += l.length + 1;
  }
  for (const rung of LINE_RUNGS) {
    let fits = fitsAt(rung, file, old);
    if (endsBreak && !folded.endsWith('\n')) fits = fits.filter((f) => f.start + old.length < file.length);
    if (fits.length === 0) continue;
    if (fits.length > 1 && !replaceAll) return { ok: false, code: 'MULTIPLE_MATCHES', rung, lines: fits.map((f) => f.start + 1) };
    const chosen: Fit[] = [];
    for (const f of fits) if (chosen.length === 0 || f.start >= chosen[chosen.length - 1]!.start + old.length) chosen.push(f);
    const eol = fileLineEnding(text);
    let out = '';
    let cursor = 0;
    for (const f of chosen) {
      let from = starts[f.start]!;
      let to = endsBreak ? starts[f.start + old.length]! : starts[f.start + old.length - 1]! + file[f.start + old.length - 1]!.length;
      if (newString === '' && !endsBreak) {
        if (to < folded.length) to += 1;
        else if (from > 0) from -= 1;
      }
      out += text.slice(cursor, at[from]) + rewrite(rung, f, newF).split('\n').join(eol);
      cursor = at[to]!;
    }
    return { ok: true, text: out + text.slice(cursor), rung };
  }
  return { ok: false, code: 'STRING_NOT_FOUND' };
}

/** Which of rungs 1–2 Edit's matching used: exact when the folded old text occurs as it is. */
function rungOneOrTwo(text: string, oldString: string): string {
  const f = (s: string) => s.replace(/\r\n?/g, '\n');
  return f(text).includes(f(oldString)) ? 'exact' : 'quotes';
}

/** 1-based lines of the non-overlapping occurrences at rung 1 or 2. */
function firstLines(text: string, oldString: string): number[] {
  const straight = (s: string) =>
    s
      .replace(/\r\n?/g, '\n')
      .replace(/[\u2018\u2019]/g, "'")
      .replace(/[\u201C\u201D]/g, '"');
  const exact = rungOneOrTwo(text, oldString) === 'exact';
  const hay = exact ? text.replace(/\r\n?/g, '\n') : straight(text);
  const needle = exact ? oldString.replace(/\r\n?/g, '\n') : straight(oldString);
  const out: number[] = [];
  for (let i = hay.indexOf(needle); i !== -1; i = hay.indexOf(needle, i + needle.length)) out.push(hay.slice(0, i).split('\n').length);
  return out;
}
