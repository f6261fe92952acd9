import { ToolError } from '../errors.js';
import { MAX_NOTEBOOK_DEPTH } from './json-depth.js';
import { scanJsonNesting, type ScannedValue } from './json-scan.js';
import { learnStyle, type ContainerStyle } from './json-style.js';
import { detectTraits, type JsonTraits } from './layout.js';
import { notebookLanguage, parseNotebook, TOO_DEEP, type JsonObject } from './model.js';

/** A notebook opened for a cell edit: its values, and where its cells sit in its text. */
export interface NotebookDocument {
  /** The JSON text the edit splices into (the file's text without its BOM). */
  text: string;
  /** A leading BOM character, put back in front of the result. */
  bom: string;
  traits: JsonTraits;
  /** The root object's whitespace, as the file writes it. */
  rootStyle: ContainerStyle;
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
  const text = input.slice(bom.length);
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
  const located = cellsOf(scanned.value);
  return {
    text,
    bom,
    traits: detectTraits(text, located.root, located.cells),
    // The root has members (at least "cells" and "nbformat"), so it always has a style.
    rootStyle: learnStyle(text, located.root, null) as ContainerStyle,
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

function cellsOf(root: ScannedValue): { root: ScannedValue; cells: ScannedValue } {
  // JSON.parse keeps the last of duplicate keys; so do we.
  const member = root.members?.filter((m) => m.key === 'cells').at(-1);
  if (member === undefined || member.value.kind !== 'array') throw invalid('it has no "cells" array');
  return { root, cells: member.value };
}
