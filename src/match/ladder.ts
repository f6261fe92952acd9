import { foldBreaks, foldString, originalOffset, type FoldedText } from './fold.js';
import { findLines, rewriteLines, splitLines } from './lines.js';
import { curlQuotes, curlyKinds, foldQuotes } from './quotes.js';
import { allIndexes, lineNumbersOf, widenDeletion } from './splices.js';
import { RUNGS, type EditRequest, type EditSearch, type LineFit, type Rung, type Splice } from './types.js';

const LINE_RUNGS = RUNGS.slice(2);

/** MULTIPLE_MATCHES names at most this many first lines. */
export const MAX_LISTED_LINES = 1000;
/** Fuzzy fits counted at most without replace_all (the answer is MULTIPLE_MATCHES anyway). */
const FIT_LIMIT = 1000;

/**
 * Edit’s matching and the ladder for Edit and MultiEdit: rungs `exact` and `quotes` match substrings
 * of the LF-folded text; rungs 3–6 match whole lines (findLines). The first rung with a
 * match decides; several without replace_all is `multiple`, and no later rung is tried.
 * Replacement text is literal (no `$` patterns) and takes the file's line break.
 *
 * Cost: an exact match is one indexOf scan, as before the ladder; the line rungs only run when
 * the substring rungs found nothing, and they are bounded (findLines: line hashing, a work
 * budget). `budget`: the search ran out of it, the edit is refused, never guessed.
 */
export function findEdit(req: EditRequest): EditSearch {
  const folded = foldBreaks(req.text);
  const needle = foldString(req.oldString);
  const substring = findSubstring(folded, needle, req);
  return substring ?? findWholeLines(folded, needle, req);
}

function findSubstring(folded: FoldedText, needle: string, req: EditRequest): EditSearch | null {
  let rung: Rung = 'exact';
  let spans = allIndexes(folded.text, needle);
  if (spans.length === 0) {
    rung = 'quotes';
    spans = allIndexes(foldQuotes(folded.text), foldQuotes(needle));
  }
  if (spans.length === 0) return null;
  if (spans.length > 1 && !req.replaceAll)
    return multiple(rung, spans.length, lineNumbersOf(folded.text, spans.slice(0, MAX_LISTED_LINES)));
  const replacement = foldString(req.newString);
  const splices = spans.map((at) => {
    const end = at + needle.length;
    const text = rung === 'quotes' ? curlQuotes(replacement, curlyKinds(folded.text.slice(at, end))) : replacement;
    return splice(folded, req, at, end, text);
  });
  return { kind: 'ok', rung, splices, lines: [] };
}

function multiple(rung: Rung, count: number, lines: number[]): EditSearch {
  return { kind: 'multiple', rung, count, lines };
}

/** A splice in original offsets; a deletion of whole lines takes their break. */
function splice(folded: FoldedText, req: EditRequest, start: number, end: number, text: string): Splice {
  let [s, e] = [start, end];
  if (req.newString === '') [s, e] = widenDeletion(folded.text, s, e);
  return {
    start: originalOffset(folded, s),
    end: originalOffset(folded, e),
    text: req.lineBreak === '\n' ? text : text.replaceAll('\n', req.lineBreak),
  };
}

function findWholeLines(folded: FoldedText, needle: string, req: EditRequest): EditSearch {
  const text = folded.text;
  const oldBreak = needle.endsWith('\n');
  const oldLines = splitLines(needle);
  const fileLines = splitLines(text);
  // Old text ending with a break needs a break after its last line in the file too.
  const to = oldBreak && !text.endsWith('\n') ? fileLines.length - 1 : fileLines.length;
  const found = findLines(fileLines, oldLines, {
    to,
    // A whole-line fit at rungs 1–2 is a substring match, which findSubstring has ruled out.
    rungs: LINE_RUNGS,
    joined: text,
    ...(req.budget ? { budget: req.budget } : {}),
    ...(req.replaceAll ? { nonOverlapping: true } : { limit: FIT_LIMIT }),
  });
  if (found.kind === 'none') return { kind: 'none' };
  const { rung, fits } = found;
  // Out of budget: two fits already answer MULTIPLE_MATCHES; anything else cannot be decided.
  if (found.kind === 'budget' && (req.replaceAll || fits.length < 2)) return { kind: 'budget', rung };
  if (fits.length > 1 && !req.replaceAll)
    return multiple(
      rung,
      fits.length,
      fits.slice(0, MAX_LISTED_LINES).map((f) => f.start + 1),
    );
  const starts = lineStarts(text);
  const chosen = nonOverlapping(fits);
  const splices = chosen.map((fit) => {
    const begin = starts[fit.start]!;
    const end = oldBreak ? (starts[fit.end] ?? text.length) : starts[fit.end - 1]! + fileLines[fit.end - 1]!.length;
    return splice(folded, req, begin, end, rewriteText(fit, foldString(req.newString)));
  });
  return { kind: 'ok', rung, splices, lines: chosen.map((f) => f.start + 1) };
}

/** The new text rewritten as the fit's rung says, its final line break kept as given. */
function rewriteText(fit: LineFit, replacement: string): string {
  const finalBreak = replacement.endsWith('\n');
  const body = finalBreak ? replacement.slice(0, -1) : replacement;
  if (body === '' && !finalBreak) return '';
  return rewriteLines(fit, body.split('\n')).join('\n') + (finalBreak ? '\n' : '');
}

/** replace_all at a line rung: every fit, left to right, none overlapping the one before. */
function nonOverlapping(fits: readonly LineFit[]): LineFit[] {
  const out: LineFit[] = [];
  for (const fit of fits) if (out.length === 0 || fit.start >= out[out.length - 1]!.end) out.push(fit);
  return out;
}

/** Offset of each line's first character in an LF text (one past a final break included). */
function lineStarts(text: string): number[] {
  const out = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) out.push(i + 1);
  return out;
}
