import { ToolError } from '../errors.js';
import { MAX_NOTEBOOK_DEPTH } from './json-depth.js';
import { scanJson, scanJsonNesting, type ScannedValue } from './json-scan.js';
import { detectEol, detectLayout, jupyterLayout, type JsonLayout } from './layout.js';
import { notebookLanguage, parseNotebook, TOO_DEEP, type JsonObject } from './model.js';
import { reformatJson } from './reformat.js';

/** A notebook opened for a cell edit: its values, and where its cells sit in its text. */
export interface NotebookDocument {
  /** The JSON text the edit splices into (re-indented when the layout was not recognized). */
  text: string;
  /** A leading BOM character, put back in front of the result. */
  bom: string;
  /** True when the file's layout was not recognized and it was re-indented. */
  reformatted: boolean;
  /** Length of the text given to openNotebook (BOM included). */
  inputLength: number;
  layout: JsonLayout;
  root: JsonObject;
  cells: unknown[];
  /** The `cells` array's span, with each cell's span and members. */
  cellsNode: ScannedValue;
  nbformat: number;
  nbformatMinor: number;
  language: string;
}

const REPAIR =
  'Read it to see what is wrong, then repair it with Write (the whole notebook as JSON: an object with a "cells" array and "nbformat": 4).';

function invalid(why: string): ToolError {
  return new ToolError('INVALID_NOTEBOOK', `The file is not an nbformat 4 notebook: ${why}. ${REPAIR}`);
}

/**
 * Parses and locates; throws INVALID_NOTEBOOK for anything NotebookEdit cannot edit: what is not
 * notebook JSON (parseNotebook, the one rule), and any nbformat but 4.
 */
export function openNotebook(input: string): NotebookDocument {
  const bom = input.charCodeAt(0) === 0xfeff ? '\ufeff' : '';
  let text = input.slice(bom.length);
  const parsed = parseNotebook(text, { depthCheckedAfter: true });
  if (!parsed.ok) throw invalid(parsed.error);
  // One pass locates the cells and measures the nesting (parseNotebook's own depth pass skipped).
  const scanned = scanJsonNesting(text, LOCATE_DEPTH);
  if (scanned.deepest > MAX_NOTEBOOK_DEPTH) throw invalid(TOO_DEEP);
  const { root, cells, nbformat, nbformatMinor } = parsed.notebook;
  if (nbformat !== 4) {
    throw new ToolError(
      'INVALID_NOTEBOOK',
      `NotebookEdit edits nbformat 4 notebooks; this one is nbformat ${nbformat}. ` +
        'Convert it (jupyter nbconvert --to notebook --nbformat 4) or rewrite it with Write as nbformat 4.',
    );
  }
  let located = cellsOf(scanned.value);
  let layout = detectLayout(text, located.root, located.cells);
  let reformatted = false;
  if (layout === null) {
    const eol = detectEol(text);
    text = reformatJson(text, ' ', eol);
    located = locate(text);
    layout = detectLayout(text, located.root, located.cells) ?? jupyterLayout(eol);
    reformatted = true;
  }
  return {
    text,
    bom,
    reformatted,
    inputLength: input.length,
    layout,
    root,
    cells,
    cellsNode: located.cells,
    nbformat,
    nbformatMinor,
    language: notebookLanguage(root),
  };
}

/** Depth 3: root members → the cells array → each cell's members (their values skipped). */
const LOCATE_DEPTH = 3;

function locate(text: string): { root: ScannedValue; cells: ScannedValue } {
  return cellsOf(scanJson(text, LOCATE_DEPTH));
}

function cellsOf(root: ScannedValue): { root: ScannedValue; cells: ScannedValue } {
  // JSON.parse keeps the last of duplicate keys; so do we.
  const member = root.members?.filter((m) => m.key === 'cells').at(-1);
  if (member === undefined || member.value.kind !== 'array') throw invalid('it has no "cells" array');
  return { root, cells: member.value };
}
