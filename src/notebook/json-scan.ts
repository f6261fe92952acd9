/**
 * A small JSON scanner that records where values sit in the original text, so an edit can
 * replace the bytes of one cell and leave every other byte alone. It assumes valid JSON (the
 * caller has run JSON.parse on the same text) and only descends `depth` levels; deeper values
 * are skipped fast (strings with indexOf), which keeps a 2 MB notebook of base64 images cheap.
 */

export interface ScannedValue {
  /** Offset of the value's first character. */
  start: number;
  /** Offset just after its last character. */
  end: number;
  kind: 'object' | 'array' | 'other';
  /** Members of an object scanned within the depth, in file order. */
  members?: ScannedMember[];
  /** Items of an array scanned within the depth. */
  items?: ScannedValue[];
}

export interface ScannedMember {
  key: string;
  /** Offset of the key's opening quote. */
  keyStart: number;
  /** Offset just after the key's closing quote. */
  keyEnd: number;
  value: ScannedValue;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

export function isJsonSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/** Scans the value starting at the first non-space at or after `from`. */
export function scanJson(text: string, depth: number, from = 0): ScannedValue {
  return scanJsonNesting(text, depth, from).value;
}

/** scanJson, and the deepest nesting of objects and arrays anywhere in the value (skipped parts too). */
export function scanJsonNesting(text: string, depth: number, from = 0): { value: ScannedValue; deepest: number } {
  const scanner = new Scanner(text);
  scanner.pos = from;
  scanner.skipSpace();
  const value = scanner.value(depth);
  return { value, deepest: scanner.deepest };
}

class Scanner {
  pos = 0;
  /** Objects and arrays open around `pos`, and the most seen at once. */
  private nesting = 0;
  deepest = 0;
  constructor(private readonly text: string) {}

  private enter(): void {
    this.nesting += 1;
    if (this.nesting > this.deepest) this.deepest = this.nesting;
  }

  skipSpace(): void {
    while (this.pos < this.text.length && isJsonSpace(this.text.charCodeAt(this.pos))) this.pos++;
  }

  value(depth: number): ScannedValue {
    const start = this.pos;
    const code = this.text.charCodeAt(start);
    if (depth > 0 && code === OPEN_BRACE) return this.object(depth);
    if (depth > 0 && code === OPEN_BRACKET) return this.array(depth);
    this.skipValue();
    const kind = code === OPEN_BRACE ? 'object' : code === OPEN_BRACKET ? 'array' : 'other';
    return { start, end: this.pos, kind };
  }

  private object(depth: number): ScannedValue {
    const start = this.pos++;
    this.enter();
    const members: ScannedMember[] = [];
    this.skipSpace();
    while (this.text.charCodeAt(this.pos) !== CLOSE_BRACE) {
      this.expect(QUOTE);
      const keyStart = this.pos;
      this.skipString();
      const keyEnd = this.pos;
      this.skipSpace();
      this.expect(COLON);
      this.pos++;
      this.skipSpace();
      const value = this.value(depth - 1);
      members.push({ key: decodeKey(this.text, keyStart, keyEnd), keyStart, keyEnd, value });
      this.afterItem(CLOSE_BRACE);
    }
    this.pos++;
    this.nesting -= 1;
    return { start, end: this.pos, kind: 'object', members };
  }

  private array(depth: number): ScannedValue {
    const start = this.pos++;
    this.enter();
    const items: ScannedValue[] = [];
    this.skipSpace();
    while (this.text.charCodeAt(this.pos) !== CLOSE_BRACKET) {
      items.push(this.value(depth - 1));
      this.afterItem(CLOSE_BRACKET);
    }
    this.pos++;
    this.nesting -= 1;
    return { start, end: this.pos, kind: 'array', items };
  }

  /** After an item: skip spaces, then a comma (and spaces) unless the container closes. */
  private afterItem(close: number): void {
    this.skipSpace();
    const code = this.text.charCodeAt(this.pos);
    if (code === COMMA) {
      this.pos++;
      this.skipSpace();
    } else if (code !== close) {
      this.fail();
    }
  }

  private skipValue(): void {
    const code = this.text.charCodeAt(this.pos);
    if (code === QUOTE) return this.skipString();
    if (code === OPEN_BRACE || code === OPEN_BRACKET) return this.skipContainer();
    const begin = this.pos;
    while (this.pos < this.text.length) {
      const c = this.text.charCodeAt(this.pos);
      if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isJsonSpace(c)) break;
      this.pos++;
    }
    if (this.pos === begin) this.fail();
  }

  /** At an opening quote: moves past the closing one. */
  private skipString(): void {
    let from = this.pos + 1;
    for (;;) {
      const quote = this.text.indexOf('"', from);
      if (quote < 0) this.fail();
      let slashes = 0;
      while (this.text.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes++;
      if (slashes % 2 === 0) {
        this.pos = quote + 1;
        return;
      }
      from = quote + 1;
    }
  }

  private skipContainer(): void {
    let level = 0;
    while (this.pos < this.text.length) {
      const c = this.text.charCodeAt(this.pos);
      if (c === QUOTE) {
        this.skipString();
        continue;
      }
      if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        level++;
        if (this.nesting + level > this.deepest) this.deepest = this.nesting + level;
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) level--;
      this.pos++;
      if (level === 0) return;
    }
    this.fail();
  }

  private expect(code: number): void {
    if (this.text.charCodeAt(this.pos) !== code) this.fail();
  }

  private fail(): never {
    throw new Error(`unexpected JSON structure at offset ${this.pos}`);
  }
}

function decodeKey(text: string, start: number, end: number): string {
  const inner = text.slice(start + 1, end - 1);
  return inner.includes('\\') ? (JSON.parse(text.slice(start, end)) as string) : inner;
}
