import type { ToolOutput } from './types.js';

/** At most this many paths are named in the note; more are counted. */
const NAMED = 10;

/**
 * A write whose replaced version history did not keep (over 64 MiB or over the whole
 * --history-max-bytes, or history is off) says so in its answer: never silently, since an
 * agent relying on undo would otherwise learn it only when a restore fails.
 */
export function withNotKeptNote<R>(out: ToolOutput<R>, paths: readonly string[]): ToolOutput<R> {
  const unique = [...new Set(paths)];
  const named = unique.slice(0, NAMED).join(', ') + (unique.length > NAMED ? ` and ${unique.length - NAMED} more` : '');
  const note =
    `History did not keep the version this write replaced of ${named} ` +
    "(it is larger than the history's size bound, or history is off): it cannot be restored.";
  // The note changes the answer, so a prepared JSON answer no longer matches it.
  const { json: _prepared, ...rest } = out;
  return { ...rest, text: `${out.text}\n\n${note}` };
}
