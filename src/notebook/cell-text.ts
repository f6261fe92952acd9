import type { ScannedValue } from './json-scan.js';
import type { JsonLayout } from './layout.js';
import { stringifyString, stringifyStyled } from './stringify.js';

/**
 * A cell being written: its members in order, each as raw JSON text. Members the edit does not
 * touch keep their original key and value text byte for byte (same depth, so same indentation).
 */
export interface CellMember {
  key: string;
  rawKey: string;
  rawValue: string;
}

export class CellBuilder {
  readonly members: CellMember[];

  constructor(
    private readonly layout: JsonLayout,
    /** Indentation of the line the cell's `{` is on. */
    readonly indent: string,
    members: CellMember[] = [],
  ) {
    this.members = members;
  }

  /** The members of a cell as they are in the text. */
  static fromText(text: string, cell: ScannedValue, layout: JsonLayout, indent: string): CellBuilder {
    const members = (cell.members ?? []).map((m) => ({
      key: m.key,
      rawKey: text.slice(m.keyStart, m.keyEnd),
      rawValue: text.slice(m.value.start, m.value.end),
    }));
    return new CellBuilder(layout, indent, members);
  }

  has(key: string): boolean {
    return this.members.some((m) => m.key === key);
  }

  /** Sets a member: in place when it exists, else at the end (or sorted, for a sorted file). */
  set(key: string, value: unknown): void {
    const rawValue = stringifyStyled(value, this.layout, this.indent + this.layout.unit);
    const existing = this.members.find((m) => m.key === key);
    if (existing !== undefined) existing.rawValue = rawValue;
    else this.members.push({ key, rawKey: stringifyString(key, this.layout.asciiOnly), rawValue });
  }

  delete(key: string): void {
    const at = this.members.findIndex((m) => m.key === key);
    if (at >= 0) this.members.splice(at, 1);
  }

  toText(): string {
    if (this.members.length === 0) return '{}';
    const members = this.layout.sortedKeys ? [...this.members].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)) : this.members;
    const open = this.layout.eol + this.indent + this.layout.unit;
    const lines = members.map((m) => m.rawKey + this.layout.keySep + m.rawValue);
    return `{${open}${lines.join(`,${open}`)}${this.layout.eol}${this.indent}}`;
  }
}

/** Indentation of the line `pos` is on, when only spaces/tabs precede it on that line. */
export function lineIndentAt(text: string, pos: number): string | null {
  let start = pos;
  while (start > 0) {
    const code = text.charCodeAt(start - 1);
    if (code === 0x20 || code === 0x09) start--;
    else if (code === 0x0a || code === 0x0d) break;
    else return null;
  }
  return text.slice(start, pos);
}
