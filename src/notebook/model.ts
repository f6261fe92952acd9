/** A notebook as parsed JSON: the few things Read and NotebookEdit need to know of it. */
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

export type ParseOutcome = { ok: true; notebook: ParsedNotebook } | { ok: false; error: string };

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses text as notebook JSON: an object with an integer `nbformat` and its cells. */
export function parseNotebook(text: string): ParseOutcome {
  if (nestsDeeperThan(text)) return { ok: false, error: `the JSON nests deeper than ${MAX_NOTEBOOK_DEPTH} levels` };
  let root: unknown;
  try {
    // A BOM is not JSON; the codec normally removes it, but be tolerant.
    root = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    return { ok: false, error: `not valid JSON (${(err as Error).message})` };
  }
  return notebookFromValue(root);
}

export function notebookFromValue(root: unknown): ParseOutcome {
  if (!isObject(root)) return { ok: false, error: 'the JSON is not an object' };
  const nbformat = root['nbformat'];
  if (typeof nbformat !== 'number' || !Number.isInteger(nbformat)) {
    return { ok: false, error: 'the JSON has no integer "nbformat"' };
  }
  const minor = root['nbformat_minor'];
  const nbformatMinor = typeof minor === 'number' && Number.isInteger(minor) ? minor : 0;
  if (nbformat >= 4) {
    const cells = root['cells'];
    if (!Array.isArray(cells)) return { ok: false, error: 'the JSON has no "cells" array' };
    return { ok: true, notebook: { root, nbformat, nbformatMinor, cells } };
  }
  return { ok: true, notebook: { root, nbformat, nbformatMinor, cells: firstWorksheetCells(root) } };
}

/** nbformat 2/3 keep cells in worksheets; Jupyter only ever used the first. */
function firstWorksheetCells(root: JsonObject): unknown[] {
  const worksheets = root['worksheets'];
  if (!Array.isArray(worksheets)) return [];
  const first: unknown = worksheets[0];
  if (!isObject(first)) return [];
  const cells = first['cells'];
  return Array.isArray(cells) ? cells : [];
}

/** SPEC §5: language_info.name, else kernelspec.language, else python. */
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

/** The cell's `id` when it has a usable one, else `cell-N` (SPEC §5). */
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
