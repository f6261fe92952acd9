import type { WorkBudget } from './budget.js';

/** The rungs of the contract's ladder, in the order they are tried. */
export const RUNGS = ['exact', 'quotes', 'line_numbers', 'trailing_whitespace', 'indentation', 'unicode'] as const;

export type Rung = (typeof RUNGS)[number];

/** One replacement in original-text offsets: [start, end) becomes `text`. */
export interface Splice {
  start: number;
  end: number;
  text: string;
}

/** How a fit's lines differ in indentation from the old text's (rung `indentation`). */
export type IndentChange =
  { kind: 'add'; prefix: string } | { kind: 'remove'; prefix: string } | { kind: 'columns'; width: number; tabs: boolean };

/** One match of old lines against the file's lines: [start, end), 0-based line indexes. */
export interface LineFit {
  rung: Rung;
  start: number;
  end: number;
  /** Rung `quotes`: which quote kinds are curly in the matched lines. */
  curly?: { single: boolean; double: boolean };
  /** Rung `indentation`: the one consistent change from old lines to the file's. */
  indent?: IndentChange;
}

export type LineSearch =
  | { kind: 'none' }
  | { kind: 'found'; rung: Rung; fits: LineFit[] }
  /** The work budget ran out at `rung`: `fits` are those checked before it did. */
  | { kind: 'budget'; rung: Rung; fits: LineFit[] };

export type EditSearch =
  | { kind: 'none' }
  | { kind: 'multiple'; rung: Rung; count: number; lines: number[] }
  | { kind: 'ok'; rung: Rung; splices: Splice[]; lines: number[] }
  /** The old text fits too many places at `rung` loosely to check them all within the budget. */
  | { kind: 'budget'; rung: Rung };

export interface EditRequest {
  /** The file's decoded text, original line breaks. */
  text: string;
  oldString: string;
  newString: string;
  replaceAll: boolean;
  /** The file's line break for new text ('\n' | '\r\n' | '\r'). */
  lineBreak: string;
  /** Shared by the searches of one call (MultiEdit's edits); default ladderBudget of the old text. */
  budget?: WorkBudget;
}
