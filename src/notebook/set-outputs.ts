import { scanJson, type ScannedMember, type ScannedValue } from './json-scan.js';
import { isObject, type JsonObject } from './model.js';
import { splitSourceLines, stringifyString } from './stringify.js';

/** What a run leaves in one code cell: its outputs and execution count. */
export interface CellOutputs {
  /** 0-based index of the cell in the notebook text given. */
  index: number;
  executionCount: number | null;
  /** nbformat 4 outputs (multiline strings as strings; split here to match the file). */
  outputs: JsonObject[];
}

interface Splice {
  start: number;
  end: number;
  insert: string;
}

/** How one cell writes its members, learned from the cell itself. */
interface CellStyle {
  /** Members on their own lines (indented), or all on one line. */
  multiline: boolean;
  eol: string;
  /** One level of indentation (multiline). */
  unit: string;
  /** Between a key and its value (`: ` or `:`). */
  keySep: string;
  /** Between two members or items on one line (`, ` or `,`). */
  itemSep: string;
  asciiOnly: boolean;
}

/**
 * Writes cells' `outputs` and `execution_count` into a notebook's text, changing only the
 * bytes of those two values (a member missing from a cell is added after its last member).
 * Each value is written in the style of its own cell, whatever the file's layout: indented one
 * level deeper than its key's line with the cell's own indent unit and line break when the
 * cell puts its members on lines of their own, on one line with the cell's separators
 * otherwise; non-ASCII escaped when the file escapes it; multiline strings as lists of lines
 * when the cell keeps its source as a list (as nbformat writes them). `text` is valid notebook
 * JSON (a leading BOM is allowed); every other byte of it is kept.
 */
export function setCellOutputs(text: string, cells: readonly CellOutputs[]): string {
  const offset = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const root = scanJson(text, 3, offset);
  const cellsNode = root.members?.filter((m) => m.key === 'cells').at(-1)?.value;
  if (cellsNode === undefined || cellsNode.kind !== 'array') throw new Error('notebook without a cells array');
  const parsedCells = (JSON.parse(text.slice(offset)) as JsonObject)['cells'] as unknown[];
  // Learned without the BOM (a non-ASCII character that is not the file's content).
  const asciiOnly = escapesNonAscii(offset === 0 ? text : text.slice(offset));
  const splices: Splice[] = [];
  for (const cell of cells) {
    const span = cellsNode.items?.[cell.index];
    if (span === undefined || span.kind !== 'object') throw new Error(`no cell at index ${cell.index}`);
    const parsedCell = parsedCells[cell.index];
    const asLines = isObject(parsedCell) && Array.isArray(parsedCell['source']);
    const outputs = asLines ? cell.outputs.map(splitOutputLines) : cell.outputs;
    const style = cellStyle(text, span, asciiOnly);
    splices.push(...memberSplices(text, span, { execution_count: cell.executionCount, outputs }, style));
  }
  splices.sort((a, b) => b.start - a.start);
  let out = text;
  for (const s of splices) out = out.slice(0, s.start) + s.insert + out.slice(s.end);
  return out;
}

function cellStyle(text: string, cell: ScannedValue, asciiOnly: boolean): CellStyle {
  const members = cell.members ?? [];
  const first = members[0];
  const second = members[1];
  const keySep = first === undefined ? ': ' : text.slice(first.keyEnd, first.value.start);
  const itemSep = first !== undefined && second !== undefined ? text.slice(first.value.end, second.keyStart) : ', ';
  const cellIndent = lineIndentAt(text, cell.start);
  const memberIndent = first === undefined ? null : lineIndentAt(text, first.keyStart);
  const multiline =
    cellIndent !== null && memberIndent !== null && memberIndent.length > cellIndent.length && memberIndent.startsWith(cellIndent);
  const eol = first === undefined ? '\n' : (/\r\n|\n|\r/.exec(text.slice(cell.start, first.keyStart))?.[0] ?? '\n');
  return {
    multiline,
    eol,
    unit: multiline ? (memberIndent as string).slice((cellIndent as string).length) : '',
    keySep: /^[ \t]*:[ \t]*$/.test(keySep) ? keySep : ': ',
    itemSep: /^[ \t]*,[ \t]*$/.test(itemSep) ? itemSep : ', ',
    asciiOnly,
  };
}

/** Replaces each member's value, or adds the member after the cell's last one. */
function memberSplices(text: string, cell: ScannedValue, values: Record<string, unknown>, style: CellStyle): Splice[] {
  const members = cell.members ?? [];
  const splices: Splice[] = [];
  const added: Array<[string, unknown]> = [];
  for (const [key, value] of Object.entries(values)) {
    // JSON.parse keeps the last of duplicate keys; so do we.
    const member = members.filter((m) => m.key === key).at(-1);
    if (member === undefined) added.push([key, value]);
    else splices.push({ start: member.value.start, end: member.value.end, insert: valueText(text, member, value, style) });
  }
  if (added.length > 0) splices.push(addMembers(text, cell, added, style));
  return splices;
}

/** The value in the cell's style, at the indentation of the line its key is on. */
function valueText(text: string, member: ScannedMember, value: unknown, style: CellStyle): string {
  const indent = style.multiline ? lineIndentAt(text, member.keyStart) : null;
  return styled(value, style, indent);
}

function addMembers(text: string, cell: ScannedValue, entries: Array<[string, unknown]>, style: CellStyle): Splice {
  const members = cell.members ?? [];
  const last = members.at(-1);
  if (last === undefined) {
    const body = entries.map(([key, value]) => `${stringifyString(key, style.asciiOnly)}${style.keySep}${styled(value, style, null)}`);
    return { start: cell.start + 1, end: cell.end - 1, insert: body.join(style.itemSep) };
  }
  const before = members.at(-2);
  // The separator the cell already uses between two members (`,\n   ` or `, `).
  const separator = before === undefined ? style.itemSep : text.slice(before.value.end, last.keyStart);
  const parts = entries.map(
    ([key, value]) => `${separator}${stringifyString(key, style.asciiOnly)}${style.keySep}${valueText(text, last, value, style)}`,
  );
  return { start: last.value.end, end: last.value.end, insert: parts.join('') };
}

/** JSON in the cell's style: indented from `indent` (null: on one line). Keys keep their order. */
function styled(value: unknown, style: CellStyle, indent: string | null): string {
  if (typeof value === 'string') return stringifyString(value, style.asciiOnly);
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const entries = Array.isArray(value) ? value.map((v) => [null, v] as const) : Object.entries(value as JsonObject);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) return open + close;
  const inner = indent === null ? null : indent + style.unit;
  const items = entries.map(
    ([key, item]) => (key === null ? '' : stringifyString(key, style.asciiOnly) + style.keySep) + styled(item, style, inner),
  );
  if (inner === null) return open + items.join(style.itemSep) + close;
  const line = style.eol + inner;
  return `${open}${line}${items.join(`,${line}`)}${style.eol}${indent as string}${close}`;
}

/** Indentation of the line `pos` is on, when only spaces/tabs precede it on that line. */
function lineIndentAt(text: string, pos: number): string | null {
  let start = pos;
  while (start > 0) {
    const code = text.charCodeAt(start - 1);
    if (code === 0x20 || code === 0x09) start--;
    else if (code === 0x0a || code === 0x0d) break;
    else return null;
  }
  return start === 0 ? null : text.slice(start, pos);
}

/** nbformat's split_lines on write: stream text and non-JSON string data become lists of lines. */
function splitOutputLines(output: JsonObject): JsonObject {
  const copy: JsonObject = { ...output };
  if (typeof copy['text'] === 'string') copy['text'] = splitSourceLines(copy['text']);
  const data = copy['data'];
  if (isObject(data)) {
    copy['data'] = Object.fromEntries(
      Object.entries(data).map(([mime, value]) => [
        mime,
        typeof value === 'string' && mime !== 'application/json' && !mime.endsWith('+json') ? splitSourceLines(value) : value,
      ]),
    );
  }
  return copy;
}

function escapesNonAscii(text: string): boolean {
  // eslint-disable-next-line no-control-regex -- the ASCII range starts at U+0000 on purpose
  if (/[^\u0000-\u007f]/.test(text)) return false;
  return /\\u(?!00[0-7])[0-9a-fA-F]{4}/.test(text);
}
