import { dominantLineBreak } from '../text/codec.js';
import type { ScannedValue } from './json-scan.js';

/** How a notebook file is laid out, learned from its own text so new text matches it. */
export interface JsonLayout {
  /** Line break between tokens: LF, CRLF (a CRLF notebook stays CRLF) or CR. */
  eol: string;
  /** One level of indentation: " " for Jupyter, also "  ", "    " or a tab. */
  unit: string;
  /** Between a key and its value: ": " for Jupyter and JSON.stringify. */
  keySep: string;
  /** Non-ASCII written as \uXXXX (Python's ensure_ascii=True), detected from the file. */
  asciiOnly: boolean;
  /** Keys sorted (Jupyter's sort_keys=True): new and converted cells sort theirs too. */
  sortedKeys: boolean;
}

/** The layout Jupyter writes; used for a notebook in no recognizable layout. */
export function jupyterLayout(eol: string): JsonLayout {
  return { eol, unit: ' ', keySep: ': ', asciiOnly: false, sortedKeys: false };
}

/** The file's most common line break (LF on a tie), as Edit uses for new lines. */
export function detectEol(text: string): string {
  return dominantLineBreak(text);
}

/**
 * Recognizes an indented layout: the root's members one level in, the cells two levels in,
 * a cell's members three levels in, all with the same unit. Anything else (minified JSON,
 * uneven indentation) is null and the notebook is rewritten with 1-space indent.
 */
export function detectLayout(text: string, root: ScannedValue, cells: ScannedValue): JsonLayout | null {
  const eol = detectEol(text);
  const first = root.members?.[0];
  if (first === undefined) return null;
  const unit = indentAfter(text, root.start + 1, first.keyStart);
  if (unit === null || unit === '') return null;
  const keySep = text.slice(first.keyEnd, first.value.start);
  if (!/^[ \t]*:[ \t]*$/.test(keySep)) return null;
  const cell = cells.items?.[0];
  if (cell !== undefined) {
    if (indentAfter(text, cells.start + 1, cell.start) !== unit.repeat(2)) return null;
    const member = cell.members?.[0];
    if (member !== undefined && indentAfter(text, cell.start + 1, member.keyStart) !== unit.repeat(3)) {
      return null;
    }
  }
  return { eol, unit, keySep, asciiOnly: detectAsciiOnly(text), sortedKeys: keysSorted(root, cells) };
}

/**
 * The indentation in text[from, to) when it is exactly one line break then spaces/tabs. Any
 * line break counts, so a file with mixed line endings keeps its layout (new lines get `eol`).
 */
function indentAfter(text: string, from: number, to: number): string | null {
  const match = /^(?:\r\n|\n|\r)([ \t]*)$/.exec(text.slice(from, to));
  return match === null ? null : (match[1] as string);
}

function detectAsciiOnly(text: string): boolean {
  // eslint-disable-next-line no-control-regex -- the ASCII range starts at U+0000 on purpose
  if (/[^\u0000-\u007f]/.test(text)) return false;
  return /\\u(?!00[0-7])[0-9a-fA-F]{4}/.test(text);
}

/** Whether cells sort their keys; with no cell to learn from, whether the root does. */
function keysSorted(root: ScannedValue, cells: ScannedValue): boolean {
  const items = cells.items ?? [];
  if (items.length === 0) return isSorted(root.members?.map((m) => m.key) ?? []);
  return items.every((cell) => isSorted(cell.members?.map((m) => m.key) ?? []));
}

function isSorted(keys: string[]): boolean {
  for (let i = 1; i < keys.length; i++) {
    if ((keys[i - 1] as string) > (keys[i] as string)) return false;
  }
  return true;
}
