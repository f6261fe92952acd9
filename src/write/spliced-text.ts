import { countLineBreaks } from '../text/line-endings.js';

/**
 * What the bounded diff reads of a new text (patch.ts, common-ends.ts): a string is one, and
 * so is a SplicedText.
 */
export interface TextView {
  readonly length: number;
  slice(start: number, end: number): string;
  charCodeAt(index: number): number;
}

/**
 * A text given as one splice of another: `base` with [start, end) replaced by `text`, never
 * built as one string. V8 gives a string over ~128 KiB fresh pages each time one is made
 * (~0.8 ms for 1 MB, docs/benchmarks.md), so Edit of a large file hands the diff this view
 * and counts its lines piecewise: only the few lines around the change are ever copied.
 *
 * Usage:
 *   const view = new SplicedText(before, 120, 131, 'new words');
 *   view.slice(100, 140); view.lines();
 */
export class SplicedText implements TextView {
  readonly length: number;

  constructor(
    readonly base: string,
    readonly start: number,
    readonly end: number,
    readonly text: string,
  ) {
    this.length = base.length - (end - start) + text.length;
  }

  charCodeAt(index: number): number {
    if (index < this.start) return this.base.charCodeAt(index);
    const inText = index - this.start;
    if (inText < this.text.length) return this.text.charCodeAt(inText);
    return this.base.charCodeAt(inText - this.text.length + this.end);
  }

  /** As String.prototype.slice with in-range, ordered bounds. */
  slice(from: number, to: number): string {
    const textEnd = this.start + this.text.length;
    const shift = this.end - textEnd;
    let out = '';
    if (from < this.start) out += this.base.slice(from, Math.min(to, this.start));
    if (to > this.start && from < textEnd)
      out += this.text.slice(Math.max(from, this.start) - this.start, Math.min(to, textEnd) - this.start);
    if (to > textEnd) out += this.base.slice(Math.max(from, textEnd) + shift, to + shift);
    return out;
  }

  /** The three pieces, in order (slices of `base` share its memory). */
  pieces(): [string, string, string] {
    return [this.base.slice(0, this.start), this.text, this.base.slice(this.end)];
  }

  /** countTextLines of the whole text (a final break starts no line; "" has 0). */
  lines(): number {
    let breaks = 0;
    let last = -1;
    for (const piece of this.pieces()) {
      if (piece === '') continue;
      const { lf, crlf, cr } = countLineBreaks(piece);
      breaks += lf + crlf + cr;
      // A CR ending one piece and the LF starting the next are one CRLF break, counted twice.
      if (last === 13 && piece.charCodeAt(0) === 10) breaks -= 1;
      last = piece.charCodeAt(piece.length - 1);
    }
    if (last === -1) return 0;
    return breaks + (last === 10 || last === 13 ? 0 : 1);
  }

  toString(): string {
    return this.base.slice(0, this.start) + this.text + this.base.slice(this.end);
  }
}
