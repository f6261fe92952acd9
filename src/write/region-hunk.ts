import { PackedHunk } from './packed-hunk.js';
import { NO_EOL, wholeRegionHunk, type HunkHeader, type PatchHunk, type WholeRegion } from './whole-hunk.js';

/**
 * A whole-region hunk (a Write that rewrites the file) kept as offsets into the two texts.
 * Its answer JSON is written from the texts (`linesJson`): each run of lines is escaped once
 * (JSON.stringify of one slice) and its `\n` escapes become the `","<sign>` between two array
 * items, so no string is made per line and no array of thousands of lines is stringified. Any
 * other reader sees a plain PatchHunk: `lines` is an own enumerable property, built on first
 * access (JSON.stringify, spreads, schema checks and tests get what they always got).
 */
export class RegionHunk implements PatchHunk {
  readonly oldStart: number;
  readonly oldLines: number;
  readonly newStart: number;
  readonly newLines: number;
  declare readonly lines: string[];
  readonly #region: WholeRegion;

  constructor(region: WholeRegion, before: string, after: string, context: number, skippedLines: number) {
    const { header } = region;
    this.oldStart = header.oldStart;
    this.oldLines = header.oldLines;
    this.newStart = header.newStart;
    this.newLines = header.newLines;
    this.#region = region;
    let lines: string[] | undefined;
    // Defined last, so the keys keep the diff package's order (…, newLines, lines).
    Object.defineProperty(this, 'lines', {
      enumerable: true,
      get: () => (lines ??= wholeRegionHunk(before, after, context, skippedLines)[0]!.lines),
    });
  }

  /** The added lines as one text (each with its break): what a check of added lines may scan at once. */
  get addedText(): string {
    const added = this.#region.parts[2]!;
    return added.text.slice(added.from, added.to);
  }

  /** Exactly JSON.stringify(this.lines). */
  linesJson(): string {
    const out: string[] = [];
    writeRegionLines(this.#region.parts, out, null);
    return out.join('');
  }

  /** The same JSON, as pieces pushed to `out`; a run that is all of `known.text` reuses its JSON. */
  writeLinesJson(out: string[], known: KnownJson | null): void {
    writeRegionLines(this.#region.parts, out, known);
  }
}

/** Characters of a region past which it is not packed: its JSON is made in one turn of the loop. */
export const MAX_REGION_CHARS = 4 * 1024 * 1024;

const NO_EOL_ITEM = `,${JSON.stringify(NO_EOL)}`;
/** A character JSON.stringify escapes, line breaks aside (a lone surrogate is looked for apart). */
// eslint-disable-next-line no-control-regex -- the control characters are what is looked for
const NEEDS_ESCAPE = /["\\\u0000-\u0009\u000b-\u001f]/;
/** An escaped backslash, or the escape of a line break (a backslash then `n`). */
const ESCAPES = /\\[\\n]/g;

/** A text whose JSON is made once and reused (a Write's old text: in original_file and in its hunk). */
export class KnownJson {
  #json: string | undefined;

  constructor(readonly text: string) {}

  get json(): string {
    return (this.#json ??= JSON.stringify(this.text));
  }
}

/** JSON.stringify of a whole-region hunk's lines, written run by run from the texts. */
export function regionLinesString(parts: WholeRegion['parts']): string {
  const out: string[] = [];
  writeRegionLines(parts, out, null);
  return out.join('');
}

function writeRegionLines(parts: WholeRegion['parts'], out: string[], known: KnownJson | null): void {
  out.push('[');
  let first = true;
  for (const { sign, text, from, to } of parts) {
    if (to <= from) continue;
    const eol = text.charCodeAt(to - 1) === 10;
    const end = eol ? to - 1 : to;
    const next = `","${sign}`;
    const isKnown = from === 0 && to === text.length && text === known?.text;
    out.push(first ? `"${sign}` : `,"${sign}`);
    first = false;
    if (!isKnown) {
      const run = text.slice(from, end);
      // Text with nothing to escape but its line breaks (most source): its lines joined as JSON
      // items by one replace, without a character-by-character JSON escape.
      if (!NEEDS_ESCAPE.test(run) && (run as string & { isWellFormed(): boolean }).isWellFormed()) {
        out.push(`${run.replaceAll('\n', next)}"`);
        if (!eol) out.push(NO_EOL_ITEM);
        continue;
      }
    }
    // The run's JSON without its opening quote.
    const escaped = isKnown
      ? known!.json.slice(1, eol ? -3 : undefined) + (eol ? '"' : '')
      : JSON.stringify(text.slice(from, end)).slice(1);
    // Without a backslash in the text, every `\n` in its JSON is a line break's escape; with
    // one, an escaped backslash (`\\`) is passed over as a pair so `\\n` stays text.
    const backslash = text.indexOf('\\', from);
    const hasBackslash = backslash !== -1 && backslash < end;
    out.push(hasBackslash ? escaped.replace(ESCAPES, (m) => (m === '\\n' ? next : m)) : escaped.replaceAll('\\n', next));
    if (!eol) out.push(NO_EOL_ITEM);
  }
  out.push(']');
}

/** The header fields of a hunk, in the diff package's key order. */
export function hunkHeader(hunk: PatchHunk): HunkHeader {
  return { oldStart: hunk.oldStart, oldLines: hunk.oldLines, newStart: hunk.newStart, newLines: hunk.newLines };
}

/**
 * JSON.stringify(value) for plain data (no toJSON, no undefined array items) as UTF-8, a
 * RegionHunk's lines written from its texts; a string equal to `known.text` is escaped once.
 * The pieces are written into one buffer: no rope of the whole answer is made and flattened.
 */
export function jsonWithRegions(value: unknown, known: KnownJson | null = null): Buffer {
  const out: string[] = [];
  writeJson(value, out, known);
  let bytes = 0;
  for (const piece of out) bytes += Buffer.byteLength(piece, 'utf8');
  const buffer = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (const piece of out) at += buffer.write(piece, at, 'utf8');
  return buffer;
}

function writeJson(value: unknown, out: string[], known: KnownJson | null): void {
  if (value instanceof RegionHunk) {
    out.push(`${JSON.stringify(hunkHeader(value)).slice(0, -1)},"lines":`);
    value.writeLinesJson(out, known);
    out.push('}');
    return;
  }
  if (typeof value === 'string' && value === known?.text) {
    out.push(known.json);
    return;
  }
  if (typeof value !== 'object' || value === null || !holdsRegion(value)) {
    out.push(JSON.stringify(value) ?? 'null');
    return;
  }
  if (Array.isArray(value)) {
    out.push('[');
    value.forEach((v: unknown, i) => {
      if (i > 0) out.push(',');
      writeJson(v, out, known);
    });
    out.push(']');
    return;
  }
  out.push('{');
  let first = true;
  for (const [key, member] of Object.entries(value)) {
    if (member === undefined || typeof member === 'function') continue;
    out.push(`${first ? '' : ','}${JSON.stringify(key)}:`);
    first = false;
    writeJson(member, out, known);
  }
  out.push('}');
}

/** Whether a RegionHunk is in `value` (an answer's few levels: result → structured_patch → hunk). */
function holdsRegion(value: object, depth = 0): boolean {
  if (value instanceof RegionHunk) return true;
  // A PackedHunk's lines would be parsed if read; a hunk's lines are strings anyway.
  if (depth > 3 || value instanceof PackedHunk) return false;
  const members = Array.isArray(value) ? (value as unknown[]) : Object.values(value);
  return members.some((m) => typeof m === 'object' && m !== null && holdsRegion(m, depth + 1));
}
