import { lineIndentAt } from './cell-text.js';
import { scanJson, type ScannedMember, type ScannedValue } from './json-scan.js';
import { detectLayout, type JsonLayout } from './layout.js';
import { isObject, type JsonObject } from './model.js';
import { splitSourceLines, stringifyString, stringifyStyled } from './stringify.js';

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

/**
 * Writes cells' `outputs` and `execution_count` into a notebook's text, changing only the
 * bytes of those two values (a member missing from a cell is added after its last member).
 * Each value is written in the file's own style: indented as the file indents when its
 * layout is recognized (at the indentation of the line the key is on), on one line otherwise,
 * non-ASCII escaped when the file escapes it, multiline strings as lists of lines when the
 * cell keeps its source as a list (as nbformat writes them). `text` is valid notebook JSON
 * (a leading BOM is allowed); every other byte of it is kept.
 */
export function setCellOutputs(text: string, cells: readonly CellOutputs[]): string {
  const offset = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const root = scanJson(text, 3, offset);
  const cellsNode = root.members?.filter((m) => m.key === 'cells').at(-1)?.value;
  if (cellsNode === undefined || cellsNode.kind !== 'array') throw new Error('notebook without a cells array');
  const parsed = JSON.parse(text.slice(offset)) as JsonObject;
  const parsedCells = parsed['cells'] as unknown[];
  // Learned without the BOM (a non-ASCII character that is not the file's content).
  const asciiOnly = escapesNonAscii(offset === 0 ? text : text.slice(offset));
  const detected = detectLayout(text, root, cellsNode);
  const style: Style = { layout: detected && { ...detected, asciiOnly }, asciiOnly };
  const splices: Splice[] = [];
  for (const cell of cells) {
    const span = cellsNode.items?.[cell.index];
    if (span === undefined || span.kind !== 'object') throw new Error(`no cell at index ${cell.index}`);
    const parsedCell = parsedCells[cell.index];
    const asLines = isObject(parsedCell) && Array.isArray(parsedCell['source']);
    const outputs = asLines ? cell.outputs.map(splitOutputLines) : cell.outputs;
    splices.push(...memberSplices(text, span, { execution_count: cell.executionCount, outputs }, style));
  }
  splices.sort((a, b) => b.start - a.start);
  let out = text;
  for (const s of splices) out = out.slice(0, s.start) + s.insert + out.slice(s.end);
  return out;
}

interface Style {
  layout: JsonLayout | null;
  asciiOnly: boolean;
}

/** Replaces each member's value, or adds the member after the cell's last one. */
function memberSplices(text: string, cell: ScannedValue, values: Record<string, unknown>, style: Style): Splice[] {
  const members = cell.members ?? [];
  const splices: Splice[] = [];
  const added: string[] = [];
  for (const [key, value] of Object.entries(values)) {
    // JSON.parse keeps the last of duplicate keys; so do we.
    const member = members.filter((m) => m.key === key).at(-1);
    if (member !== undefined) {
      splices.push({ start: member.value.start, end: member.value.end, insert: valueText(text, member, value, style) });
    } else {
      added.push(key);
    }
  }
  if (added.length > 0)
    splices.push(
      addMembers(
        text,
        cell,
        added.map((key) => [key, values[key]]),
        style,
      ),
    );
  return splices;
}

/** The value in the file's style, at the indentation of the line its key is on. */
function valueText(text: string, member: ScannedMember, value: unknown, style: Style): string {
  const indent = lineIndentAt(text, member.keyStart);
  if (style.layout !== null && indent !== null) return stringifyStyled(value, style.layout, indent);
  return compact(value, style.asciiOnly);
}

function addMembers(text: string, cell: ScannedValue, entries: Array<[string, unknown]>, style: Style): Splice {
  const members = cell.members ?? [];
  const last = members.at(-1);
  if (last === undefined) {
    const body = entries.map(([key, value]) => `${stringifyString(key, style.asciiOnly)}:${compact(value, style.asciiOnly)}`).join(',');
    return { start: cell.start + 1, end: cell.end - 1, insert: body };
  }
  const before = members.at(-2);
  // The separator the cell already uses between two members (`,\n   ` or `,`), else a comma.
  const separator = before === undefined ? ',' : text.slice(before.value.end, last.keyStart);
  const keySep = text.slice(last.keyEnd, last.value.start);
  const parts = entries.map(([key, value]) => {
    const probe: ScannedMember = { key, keyStart: last.keyStart, keyEnd: last.keyEnd, value: last.value };
    return `${separator}${stringifyString(key, style.asciiOnly)}${keySep}${valueText(text, probe, value, style)}`;
  });
  return { start: last.value.end, end: last.value.end, insert: parts.join('') };
}

function compact(value: unknown, asciiOnly: boolean): string {
  if (typeof value === 'string') return stringifyString(value, asciiOnly);
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => compact(v, asciiOnly)).join(',')}]`;
  const members = Object.entries(value as JsonObject).map(([k, v]) => `${stringifyString(k, asciiOnly)}:${compact(v, asciiOnly)}`);
  return `{${members.join(',')}}`;
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
