import { ToolError } from '../../errors.js';
import { applySplices, findClosest, findEdit, formatClosest, type Rung, type Splice, type WorkBudget } from '../../match/index.js';
import { detectPlaceholder, placeholderMessage } from '../../write/placeholders.js';

/** One search/replace, as Edit's body and each of MultiEdit's edits give it. */
export interface OneEdit {
  old_string: string;
  new_string: string;
  replace_all: boolean;
}

export interface EditApplied {
  after: string;
  /** Where `after` differs from the text (sorted, original offsets). */
  splices: readonly Splice[];
  replacements: number;
  rung: Rung;
}

export interface EditPlace {
  /** The file, relative to the root, for messages. */
  path: string;
  /** The file's line break for new text. */
  lineBreak: string;
  allowPlaceholders: boolean;
  /** The matching budget of the whole call (MultiEdit's edits share one); default one per edit. */
  budget?: WorkBudget;
}

/**
 * Edit’s matching and splicing on a decoded text: the ladder, then the placeholder check on what
 * the match replaces. Throws STRING_NOT_FOUND (with the closest text), MULTIPLE_MATCHES (rung
 * and lines) or PLACEHOLDER_DETECTED. Edit and MultiEdit share it, so an edit behaves the same
 * alone or in a batch.
 */
export function applyEdit(text: string, edit: OneEdit, place: EditPlace): EditApplied {
  const found = findEdit({
    text,
    oldString: edit.old_string,
    newString: edit.new_string,
    replaceAll: edit.replace_all,
    lineBreak: place.lineBreak,
    ...(place.budget ? { budget: place.budget } : {}),
  });
  if (found.kind === 'none') throw notFound(text, edit.old_string, place.path);
  if (found.kind === 'budget') throw searchStopped(found.rung, place.path);
  if (found.kind === 'multiple') {
    const where = found.lines.length > 10 ? `${found.lines.slice(0, 10).join(', ')}, …` : found.lines.join(', ');
    const how = found.rung === 'exact' ? '' : ` (at rung ${found.rung})`;
    throw new ToolError(
      'MULTIPLE_MATCHES',
      `old_string matched ${found.count} times in ${place.path}${how}, starting on lines ${where}; add surrounding context to make it unique, or set replace_all to replace every occurrence.`,
      { matches: found.count, rung: found.rung, lines: found.lines },
    );
  }
  if (!place.allowPlaceholders) assertNoPlaceholder(text, found.splices, edit.new_string);
  return { after: applySplices(text, found.splices), splices: found.splices, replacements: found.splices.length, rung: found.rung };
}

function notFound(text: string, oldString: string, path: string): ToolError {
  const closest = findClosest(text, oldString);
  const advice = `old_string was not found in ${path}.`;
  if (!closest) {
    return new ToolError(
      'STRING_NOT_FOUND',
      `${advice} Read the file again and copy the text exactly (whitespace and indentation included), without the line-number prefix.`,
    );
  }
  return new ToolError(
    'STRING_NOT_FOUND',
    `${advice} ${formatClosest(closest)}\nCopy the text exactly as the file has it (without the line-number prefix) and retry.`,
    { closest },
  );
}

/**
 * Bounded work: the old text fits so many places once whitespace (or another rung's
 * folding) is ignored that they cannot all be checked within the matching budget. Refused —
 * never a guess — with what to send instead; no `closest` (there are too many).
 */
function searchStopped(rung: Rung, path: string): ToolError {
  return new ToolError(
    'STRING_NOT_FOUND',
    `old_string was not found in ${path} as it is; at rung ${rung} it fits so many places that the search stopped before checking them all. ` +
      'Copy the text exactly as the file has it (whitespace and indentation included, without the line-number prefix), or include a line that occurs only once.',
    { rung, search_stopped: true },
  );
}

/** A placeholder line in the new text that the replaced text did not have. */
export function assertNoPlaceholder(text: string, splices: readonly Splice[], newText: string): void {
  const replaced = splices.length === 0 ? '' : text.slice(splices[0]!.start, splices[splices.length - 1]!.end);
  const hit = detectPlaceholder(newText, replaced);
  if (hit) throw new ToolError('PLACEHOLDER_DETECTED', placeholderMessage('new_string', hit), { line: hit.line, text: hit.text });
}
