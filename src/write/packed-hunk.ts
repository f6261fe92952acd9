import { NO_EOL, type HunkHeader, type PatchHunk, type RegionPart } from './whole-hunk.js';

/**
 * SPEC §8 "Bounded work": a hunk whose `lines` are held as their JSON text (UTF-8), not as
 * strings. A replace_all over 5,000,000 matches makes a 10,000,000-line hunk; as strings on the
 * event loop's heap they cost seconds of garbage collection. The worker thread builds this JSON
 * and transfers its bytes; the REST serializer (src/http/sliced-json.ts) sends them as they
 * are. Any other reader sees a plain PatchHunk: `lines` is an own enumerable property, parsed
 * on first access, so JSON.stringify, spreads and schema checks give what they always gave.
 */
export class PackedHunk implements PatchHunk {
  readonly oldStart: number;
  readonly oldLines: number;
  readonly newStart: number;
  readonly newLines: number;
  declare readonly lines: string[];
  readonly #json: Buffer;

  constructor(header: HunkHeader, linesJson: Buffer) {
    this.oldStart = header.oldStart;
    this.oldLines = header.oldLines;
    this.newStart = header.newStart;
    this.newLines = header.newLines;
    this.#json = linesJson;
    let lines: string[] | undefined;
    // Defined last, so the keys keep the diff package's order (…, newLines, lines).
    Object.defineProperty(this, 'lines', { enumerable: true, get: () => (lines ??= JSON.parse(linesJson.toString('utf8')) as string[]) });
  }

  /** Exactly JSON.stringify(this.lines), as UTF-8. */
  get linesJson(): Buffer {
    return this.#json;
  }
}

/**
 * JSON.stringify of a whole-region hunk's lines, built from the texts with no string per line:
 * each run is escaped at once, and its '\n' escapes become the separators of the array items.
 */
export function regionLinesJson(parts: readonly RegionPart[]): string {
  const items: string[] = [];
  for (const { sign, text, from, to } of parts) {
    if (to <= from) continue;
    const ends = text.charCodeAt(to - 1) === 10;
    items.push(`"${sign}${linesEscaped(text.slice(from, ends ? to - 1 : to), sign)}"`);
    if (!ends) items.push(JSON.stringify(NO_EOL));
  }
  return `[${items.join(',')}]`;
}

/** The JSON-escaped run, each line break turned into `","<sign>` (one item per line). */
function linesEscaped(run: string, sign: string): string {
  const escaped = JSON.stringify(run).slice(1, -1);
  const next = `","${sign}`;
  // Without a backslash in the text, every `\n` of the escaped text is a line break's escape.
  if (!run.includes('\\')) return escaped.replaceAll('\\n', next);
  // Else an escaped backslash (`\\`) is skipped whole, so `\\n` (backslash, then n) stays text.
  return escaped.replace(/\\[\\n]/g, (m) => (m === '\\n' ? next : m));
}
