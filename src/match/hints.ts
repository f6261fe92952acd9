import { leadingWhitespace } from './indent.js';
import { hasPrefix } from './line-prefix.js';

/**
 * Hints for `details.closest`: each difference between a file line and the old
 * text's line, named so that the model can fix its call in one step.
 */

/** "a tab", "2 tabs", "4 spaces", "a tab and 2 spaces", "no indentation". */
export function describeIndent(ws: string): string {
  if (ws === '') return 'no indentation';
  const tabs = [...ws].filter((c) => c === '\t').length;
  const spaces = ws.length - tabs;
  const parts: string[] = [];
  if (tabs > 0) parts.push(tabs === 1 ? 'a tab' : `${tabs} tabs`);
  if (spaces > 0) parts.push(spaces === 1 ? 'a space' : `${spaces} spaces`);
  return parts.join(' and ');
}

const TRAILING = /[ \t]+$/;
const TOKEN = /[\p{L}\p{N}_]+|\s+|[^\p{L}\p{N}_\s]/gu;

/** The hints for one pair of lines; `lineNo` is the file line's 1-based number. */
export function lineHints(lineNo: number, fileLine: string, oldLine: string): string[] {
  if (fileLine === oldLine) return [];
  const at = `line ${lineNo}:`;
  const out: string[] = [];
  let old = oldLine;
  if (hasPrefix(old) && !hasPrefix(fileLine)) {
    out.push(`${at} old_string starts with a line-number prefix; leave out Read's numbering`);
    old = old.replace(/^ *\d+(?:\u2192|\t)/, '');
  }
  const [fileLead, oldLead] = [leadingWhitespace(fileLine), leadingWhitespace(old)];
  if (fileLead !== oldLead && fileLine.trim() !== '') {
    out.push(`${at} the file indents with ${describeIndent(fileLead)}, old_string with ${describeIndent(oldLead)}`);
  }
  const [fileTrail, oldTrail] = [TRAILING.exec(fileLine)?.[0] ?? '', TRAILING.exec(old)?.[0] ?? ''];
  if (fileTrail !== oldTrail && fileLine.trim() !== '') {
    out.push(
      fileTrail === ''
        ? `${at} the file has no trailing whitespace, old_string ends with ${describeIndent(oldTrail)}`
        : `${at} the file ends the line with ${describeIndent(fileTrail)}, old_string with ${oldTrail === '' ? 'none' : describeIndent(oldTrail)}`,
    );
  }
  const words = wordDifference(fileLine.trim(), old.trim());
  if (words) out.push(`${at} ${words}`);
  return out;
}

/** `the file has "user_id", old_string "userId"` for the run of tokens that differs. */
function wordDifference(file: string, old: string): string | null {
  if (file === old) return null;
  const a = file.match(TOKEN) ?? [];
  const b = old.match(TOKEN) ?? [];
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head += 1;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail += 1;
  const fileMid = a.slice(head, a.length - tail).join('');
  const oldMid = b.slice(head, b.length - tail).join('');
  if (fileMid === '') return `old_string has ${quote(oldMid)} that the file does not have`;
  if (oldMid === '') return `the file has ${quote(fileMid)} that old_string does not have`;
  return `the file has ${quote(fileMid)}, old_string ${quote(oldMid)}`;
}

/** A quoted fragment (cut at 60 characters), with code points for characters beyond ASCII punctuation. */
function quote(s: string): string {
  const cut = s.length > 60 ? `${s.slice(0, 60)}…` : s;
  const odd = [...new Set([...cut].filter((c) => /[^\x20-\x7e\p{L}\p{N}]/u.test(c)))];
  const codes = odd.map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`);
  return codes.length ? `"${cut}" (${codes.join(', ')})` : `"${cut}"`;
}
