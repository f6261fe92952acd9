import { NO_EOL, type HunkHeader, type PatchHunk, type RegionPart } from './whole-hunk.js';

/**
 * Bounded work: a hunk whose `lines` are held as their JSON text (UTF-8), not as
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

const QUOTE = 0x22;
const COMMA = 0x2c;
const BACKSLASH = 0x5c;
const LETTER_N = 0x6e;

/**
 * JSON.stringify of a whole-region hunk's lines as UTF-8, built from the texts with no string
 * per line: each run is escaped at once (JSON.stringify), and its bytes are copied with every
 * `\n` escape turned into `","<sign>`, the end of one array item and the start of the next.
 * The bytes are in an ArrayBuffer of their own, so the worker can transfer them.
 */
export function regionLinesJson(parts: readonly RegionPart[]): Uint8Array {
  const runs: Array<{ sign: number; escaped: Buffer; eol: boolean }> = [];
  for (const { sign, text, from, to } of parts) {
    if (to <= from) continue;
    const eol = text.charCodeAt(to - 1) === 10;
    const quoted = Buffer.from(JSON.stringify(text.slice(from, eol ? to - 1 : to)), 'utf8');
    runs.push({ sign: sign.charCodeAt(0), escaped: quoted.subarray(1, -1), eol });
  }
  const marker = Buffer.from(`,${JSON.stringify(NO_EOL)}`, 'utf8');
  // Two passes over the same bytes: the first only measures, so the output is allocated once.
  const write = (out: Uint8Array | null): number => {
    let at = 0;
    if (out) out[at] = 0x5b; // [
    at += 1;
    runs.forEach((run, i) => {
      if (out && i > 0) out[at] = COMMA;
      at += i > 0 ? 1 : 0;
      if (out) {
        out[at] = QUOTE;
        out[at + 1] = run.sign;
      }
      at = copyEscaped(run.escaped, run.sign, out, at + 2);
      if (out) out[at] = QUOTE;
      at += 1;
      if (!run.eol) {
        out?.set(marker, at);
        at += marker.length;
      }
    });
    if (out) out[at] = 0x5d; // ]
    return at + 1;
  };
  const out = new Uint8Array(write(null));
  write(out);
  return out;
}

/**
 * Copies JSON-escaped bytes to `out` at `at` (or only counts them when out is null), each `\n`
 * escape becoming `","<sign>`; returns the end. Every backslash there starts a two-byte escape
 * (`\uXXXX` goes on as plain bytes), so `\\n`, a backslash then n, stays text.
 */
function copyEscaped(src: Uint8Array, sign: number, out: Uint8Array | null, at: number): number {
  let o = at;
  for (let i = 0; i < src.length; i += 1) {
    const c = src[i]!;
    if (c !== BACKSLASH) {
      if (out) out[o] = c;
      o += 1;
      continue;
    }
    const d = src[i + 1]!;
    i += 1;
    if (d === LETTER_N) {
      if (out) {
        out[o] = QUOTE;
        out[o + 1] = COMMA;
        out[o + 2] = QUOTE;
        out[o + 3] = sign;
      }
      o += 4;
    } else {
      if (out) {
        out[o] = c;
        out[o + 1] = d;
      }
      o += 2;
    }
  }
  return o;
}

/** UTF-8 in an ArrayBuffer of its own: a small Buffer.from shares the pool, which must not be transferred. */
export function utf8Unpooled(text: string): Uint8Array {
  const out = new Uint8Array(Buffer.byteLength(text, 'utf8'));
  Buffer.from(out.buffer).write(text, 'utf8');
  return out;
}
