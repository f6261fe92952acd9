import { setImmediate as nextTurn } from 'node:timers/promises';
import { ToolError } from '../errors.js';
import { detectPlaceholder, mayHoldPlaceholder, placeholderMessage } from '../write/placeholders.js';
import type { Hunk } from './parse.js';

/** Added lines checked per turn of the event loop (a 30 MB append has half a million). */
const CHECK_LINES = 16_384;
const BREAKS = /\r\n|\r|\n/;

/**
 * A hunk's `+` lines must not add an omission placeholder its old lines did not have. The added
 * lines are checked a slice at a time, each slice its own turn; the line a hit names counts
 * from the hunk's first added line, as if they were checked as one text.
 */
export async function assertNoPlaceholder(hunk: Hunk, filePath: string, index: number): Promise<void> {
  let replaced: string | null = null;
  let before = 0;
  let added: string[] = [];
  const check = (): void => {
    const text = added.join('\n');
    added = [];
    if (!mayHoldPlaceholder(text)) return void (before += lineCount(text));
    replaced ??= hunk.lines
      .filter((l) => l.kind !== '+')
      .map((l) => l.text)
      .join('\n');
    const hit = detectPlaceholder(text, replaced);
    if (hit === null) return void (before += lineCount(text));
    const found = { line: before + hit.line, text: hit.text };
    const message = `Hunk ${index + 1} of ${filePath}: ${placeholderMessage('added', found)}`;
    throw new ToolError('PLACEHOLDER_DETECTED', message, { file_path: filePath, hunk: index, line: found.line, text: found.text });
  };
  for (const line of hunk.lines) {
    if (line.kind !== '+') continue;
    added.push(line.text);
    if (added.length < CHECK_LINES) continue;
    check();
    await nextTurn();
  }
  if (added.length > 0) check();
}

/** Lines of `text` as detectPlaceholder counts them. */
function lineCount(text: string): number {
  return text.includes('\r') ? text.split(BREAKS).length : countLf(text) + 1;
}

function countLf(text: string): number {
  let n = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) n += 1;
  return n;
}
