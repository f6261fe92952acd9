import { ToolError } from '../errors.js';
import { applySplices, findClosest, findEdit, formatClosest, type Rung, type Splice } from '../match/index.js';
import { dominantLineBreak } from '../text/codec.js';
import { detectPlaceholder, placeholderMessage } from '../write/placeholders.js';

export interface SourceEdit {
  oldString: string;
  newString: string;
  replaceAll: boolean;
  allowPlaceholders: boolean;
}

export interface SourceEdited {
  source: string;
  rung: Rung;
  replacements: number;
  /** 1-based first and last line of the new source around what the edit wrote. */
  firstLine: number;
  lastLine: number;
}

/**
 * NotebookEdit's `edit`: old_string → new_string inside one cell's source, with Edit's rules and
 * the ladder applied to that source alone, so a match elsewhere in the notebook never counts.
 * `label` names the cell in messages ("cell abc of nb.ipynb").
 */
export function editSource(source: string, edit: SourceEdit, label: string): SourceEdited {
  if (edit.oldString === edit.newString) {
    throw new ToolError('NO_CHANGE', 'old_string and new_string are the same, so there is nothing to change.');
  }
  if (edit.oldString === '') {
    throw new ToolError(
      'INVALID_INPUT',
      'old_string must not be empty for edit_mode "edit"; to set the whole source use edit_mode "replace".',
      {
        fields: [{ field: 'body.old_string', message: 'must not be empty' }],
      },
    );
  }
  const found = findEdit({
    text: source,
    oldString: edit.oldString,
    newString: edit.newString,
    replaceAll: edit.replaceAll,
    lineBreak: dominantLineBreak(source),
  });
  if (found.kind === 'none') throw notFound(source, edit.oldString, label);
  if (found.kind === 'budget') {
    throw new ToolError(
      'STRING_NOT_FOUND',
      `old_string was not found in ${label} as it is; at rung ${found.rung} it fits so many places that the search stopped before checking them all. Copy the text exactly as the cell has it.`,
      { rung: found.rung, search_stopped: true },
    );
  }
  if (found.kind === 'multiple') {
    const how = found.rung === 'exact' ? '' : ` (at rung ${found.rung})`;
    throw new ToolError(
      'MULTIPLE_MATCHES',
      `old_string matched ${found.count} times in ${label}${how}, starting on lines ${found.lines.slice(0, 10).join(', ')} of the cell; add surrounding context to make it unique, or set replace_all to replace every occurrence.`,
      { matches: found.count, rung: found.rung, lines: found.lines },
    );
  }
  if (!edit.allowPlaceholders) assertNoPlaceholder(source, found.splices, edit.newString);
  const after = applySplices(source, found.splices);
  return { source: after, rung: found.rung, replacements: found.splices.length, ...changedLines(after, found.splices) };
}

function notFound(source: string, oldString: string, label: string): ToolError {
  const closest = findClosest(source, oldString);
  const advice = `old_string was not found in ${label}.`;
  if (!closest) {
    return new ToolError(
      'STRING_NOT_FOUND',
      `${advice} Read the notebook again and copy the cell's text exactly (whitespace and indentation included).`,
    );
  }
  return new ToolError('STRING_NOT_FOUND', `${advice} ${formatClosest(closest)}\nCopy the text exactly as the cell has it and retry.`, {
    closest,
  });
}

function assertNoPlaceholder(source: string, splices: readonly Splice[], newText: string): void {
  const replaced = splices.length === 0 ? '' : source.slice(splices[0]!.start, splices[splices.length - 1]!.end);
  const hit = detectPlaceholder(newText, replaced);
  if (hit) throw new ToolError('PLACEHOLDER_DETECTED', placeholderMessage('new_string', hit), { line: hit.line, text: hit.text });
}

/** The lines of the new source from the first splice's start to the last splice's end (at least one line). */
function changedLines(after: string, splices: readonly Splice[]): { firstLine: number; lastLine: number } {
  const first = splices[0]!;
  const last = splices[splices.length - 1]!;
  let shift = 0;
  for (const s of splices) shift += s.text.length - (s.end - s.start);
  const endInNew = last.end + shift;
  const lineOf = (offset: number) => after.slice(0, offset).split(/\r\n|\r|\n/).length;
  const firstLine = lineOf(first.start);
  return { firstLine, lastLine: endInNew > first.start ? Math.max(firstLine, lineOf(endInNew - 1)) : firstLine };
}
