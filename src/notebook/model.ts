/** A notebook as parsed JSON: the few things Read, Write and NotebookEdit need to know of it. */
import { MAX_NOTEBOOK_DEPTH, nestsDeeperThan } from './json-depth.js';

export type JsonObject = Record<string, unknown>;

export interface ParsedNotebook {
  root: JsonObject;
  nbformat: number;
  /** 0 when the notebook does not say (nbformat's own test files include such notebooks). */
  nbformatMinor: number;
  /** Cells of an nbformat 4 notebook, or of the first worksheet of an nbformat 2/3 one. */
  cells: unknown[];
}

/** `error` is a clause ("it has no "cells" array") each tool puts in its own sentence. */
export type ParseOutcome = { ok: true; notebook: ParsedNotebook } | { ok: false; error: string };

/**
 * The major versions Jupyter has released and still reads: 2 and 3 keep cells in worksheets,
 * 4 at the top. nbformat 1 was never written by a released IPython; Jupyter refuses a major
 * version it does not know ("Unsupported nbformat version 5").
 */
export const NBFORMAT_MAJORS: readonly number[] = [2, 3, 4];

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The reason a notebook nested past MAX_NOTEBOOK_DEPTH is refused. */
export const TOO_DEEP = `its JSON nests deeper than ${MAX_NOTEBOOK_DEPTH} levels`;

/**
 * The one rule for "notebook JSON", used by Read (else a text file with
 * `notebook_error`), Write and ApplyPatch's Add (else INVALID_NOTEBOOK), NotebookEdit (which
 * also needs nbformat 4), Grep and restore:
 * - nests at most MAX_NOTEBOOK_DEPTH levels (never parsed when it is not safe to),
 * - is valid JSON and an object,
 * - `nbformat` is an integer in NBFORMAT_MAJORS,
 * - nbformat 4: `cells` is an array; nbformat 2/3: `worksheets`, when present, is an array whose
 *   first worksheet is an object with, when present, a `cells` array (nbformat reads both of
 *   its own test files without worksheets or without cells as empty notebooks).
 * Nothing else is checked: `nbformat_minor` absent or not an integer reads as 0, and cells are
 * not validated ("a schema-invalid notebook that has cells is still edited").
 */
export function parseNotebook(text: string, opts: { depthCheckedAfter?: boolean } = {}): ParseOutcome {
  // `depthCheckedAfter`: the caller scans the text anyway and checks its depth right after the
  // parse (NotebookEdit's openNotebook); V8's JSON.parse is not recursive, only what follows is.
  if (!opts.depthCheckedAfter && nestsDeeperThan(text)) return { ok: false, error: TOO_DEEP };
  let root: unknown;
  try {
    // A BOM is not JSON; the codec normally removes it, but be tolerant.
    root = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    return { ok: false, error: `it is not valid JSON (${parserMessage(err)})` };
  }
  if (!isObject(root)) return { ok: false, error: 'its JSON is not an object' };
  const nbformat = root['nbformat'];
  if (typeof nbformat !== 'number' || !Number.isInteger(nbformat)) {
    return { ok: false, error: 'it has no integer "nbformat"' };
  }
  if (!NBFORMAT_MAJORS.includes(nbformat)) {
    return { ok: false, error: `it says nbformat ${nbformat}, a version Jupyter does not have (it has 2, 3 and 4)` };
  }
  const cells = nbformat >= 4 ? topLevelCells(root) : firstWorksheetCells(root);
  if (typeof cells === 'string') return { ok: false, error: cells };
  if (nbformat < 4) rejoinLines(cells);
  const minor = root['nbformat_minor'];
  const nbformatMinor = typeof minor === 'number' && Number.isInteger(minor) ? minor : 0;
  return { ok: true, notebook: { root, nbformat, nbformatMinor, cells } };
}

/** The parser's message without the excerpt of the text newer V8 quotes (`, "…" is not valid JSON`). */
function parserMessage(err: unknown): string {
  return (err as Error).message.replace(/, ".*" is not valid JSON$/s, '');
}

/** The cells, or why there are none. */
function topLevelCells(root: JsonObject): unknown[] | string {
  const cells = root['cells'];
  if (Array.isArray(cells)) return cells;
  return cells === undefined ? 'it has no "cells" array' : 'its "cells" is not an array';
}

/** nbformat 2/3 keep cells in worksheets; Jupyter only ever used the first. */
function firstWorksheetCells(root: JsonObject): unknown[] | string {
  const worksheets = root['worksheets'];
  if (worksheets === undefined) return [];
  if (!Array.isArray(worksheets)) return 'its "worksheets" is not an array';
  if (worksheets.length === 0) return [];
  const first: unknown = worksheets[0];
  if (!isObject(first)) return 'its first worksheet is not an object';
  const cells = first['cells'];
  if (cells === undefined) return [];
  return Array.isArray(cells) ? cells : 'its first worksheet\'s "cells" is not an array';
}

/** The keys whose lists of lines nbformat 2/3 joins on reading (nbformat.v3.rwbase.rejoin_lines). */
const LEGACY_MULTILINE_CELL_KEYS = ['input', 'source', 'rendered'];
const LEGACY_MULTILINE_OUTPUT_KEYS = ['text', 'html', 'svg', 'latex', 'javascript', 'json'];

/**
 * nbformat 2 wrote lists of lines without their line breaks (`splitlines()`), 3 with or without:
 * joined as Jupyter joins them (with "\n" unless the first line ends with one), so a source
 * shows its lines. In place: only Read, Grep and restore see nbformat 2/3 cells, never a writer.
 */
function rejoinLines(cells: unknown[]): void {
  for (const cell of cells) {
    if (!isObject(cell)) continue;
    joinKeys(cell, LEGACY_MULTILINE_CELL_KEYS);
    const outputs = cell['outputs'];
    if (Array.isArray(outputs)) for (const output of outputs) if (isObject(output)) joinKeys(output, LEGACY_MULTILINE_OUTPUT_KEYS);
  }
}

function joinKeys(object: JsonObject, keys: readonly string[]): void {
  for (const key of keys) {
    const lines = object[key];
    if (!Array.isArray(lines) || !lines.every((l) => typeof l === 'string')) continue;
    const first = lines[0] as string | undefined;
    object[key] = lines.join(first !== undefined && /[\r\n]$/.test(first) ? '' : '\n');
  }
}

/** Language_info.name, else kernelspec.language, else python. */
export function notebookLanguage(root: JsonObject): string {
  const metadata = root['metadata'];
  if (isObject(metadata)) {
    const info = metadata['language_info'];
    if (isObject(info) && typeof info['name'] === 'string' && info['name'] !== '') return info['name'];
    const spec = metadata['kernelspec'];
    if (isObject(spec) && typeof spec['language'] === 'string' && spec['language'] !== '') {
      return spec['language'];
    }
  }
  return 'python';
}

/** Multiline strings are a string or a list of strings in every nbformat version. */
export function joinMultiline(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map((part) => (typeof part === 'string' ? part : '')).join('');
  return '';
}

/** The cell's `id` when it has a usable one, else `cell-N`. */
export function cellIdAt(cell: unknown, index: number): string {
  if (isObject(cell) && typeof cell['id'] === 'string' && cell['id'] !== '') return cell['id'];
  return `cell-${index}`;
}

export function cellType(cell: unknown): string {
  return isObject(cell) && typeof cell['cell_type'] === 'string' ? cell['cell_type'] : 'unknown';
}

/** nbformat 3 code cells keep their source in `input`, their count in `prompt_number`. */
export function cellSource(cell: unknown): string {
  if (!isObject(cell)) return '';
  if (cell['source'] !== undefined) return joinMultiline(cell['source']);
  return joinMultiline(cell['input']);
}

export function cellExecutionCount(cell: unknown): number | null {
  if (!isObject(cell)) return null;
  const count = cell['execution_count'] ?? cell['prompt_number'];
  return typeof count === 'number' && Number.isInteger(count) ? count : null;
}
