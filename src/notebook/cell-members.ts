import type { ScannedValue } from './json-scan.js';
import { childStyle, learnStyle, writeValue, type ContainerStyle } from './json-style.js';
import type { JsonTraits } from './layout.js';
import { stringifyString } from './stringify.js';

/** One member of a cell: its key and colon as written (`head`), and its value's text. */
interface RawMember {
  key: string;
  head: string;
  value: string;
}

/**
 * A cell object being edited as its text: members and the separators between them exactly as
 * written. Setting a member rewrites only its value; deleting one removes it and one
 * separator; adding one copies a separator the cell already has. So every byte of the cell
 * that is not a changed value stays.
 */
export class CellMembers {
  private readonly members: RawMember[];
  private readonly seps: string[];
  private open: string;
  private close: string;

  private constructor(
    readonly style: ContainerStyle,
    private readonly traits: JsonTraits,
    members: RawMember[],
    layout: { seps: string[]; open: string; close: string },
  ) {
    this.members = members;
    this.seps = layout.seps;
    this.open = layout.open;
    this.close = layout.close;
  }

  /** The cell at `node` (scanned with its members); `fallback`: the style a cell gets when this one is `{}`. */
  static fromText(text: string, node: ScannedValue, traits: JsonTraits, fallback: ContainerStyle): CellMembers {
    const scanned = node.members ?? [];
    const style = learnStyle(text, node, fallback) ?? fallback;
    const members = scanned.map((m) => ({
      key: m.key,
      head: text.slice(m.keyStart, m.value.start),
      value: text.slice(m.value.start, m.value.end),
    }));
    const seps = scanned.slice(1).map((m, i) => text.slice((scanned[i] as (typeof scanned)[number]).value.end, m.keyStart));
    const open = scanned.length === 0 ? '' : style.open;
    const close = scanned.length === 0 ? '' : style.close;
    return new CellMembers(style, traits, members, { seps, open, close });
  }

  /** A new, empty cell written in `style`. */
  static empty(style: ContainerStyle, traits: JsonTraits): CellMembers {
    return new CellMembers(style, traits, [], { seps: [], open: '', close: '' });
  }

  has(key: string): boolean {
    return this.members.some((m) => m.key === key);
  }

  /** The value's text as it is now, or undefined. */
  raw(key: string): string | undefined {
    return this.members.findLast((m) => m.key === key)?.value;
  }

  /** Sets a member's value text: in place when it exists, else added (sorted in a sorted file, else last). */
  setRaw(key: string, value: string): void {
    const existing = this.members.findLast((m) => m.key === key);
    if (existing !== undefined) {
      existing.value = value;
      return;
    }
    const member = { key, head: stringifyString(key, this.traits.asciiOnly) + this.style.colon, value };
    let at = this.members.length;
    if (this.traits.sortedKeys) {
      const after = this.members.findIndex((m) => m.key > key);
      if (after >= 0) at = after;
    }
    if (this.members.length === 0) {
      this.open = this.style.open;
      this.close = this.style.close;
    }
    this.members.splice(at, 0, member);
    if (this.members.length > 1) this.seps.splice(Math.min(at, this.seps.length), 0, this.newSep(at));
  }

  /** Sets a member to a value written in the cell's style (a nested container one level in). */
  set(key: string, value: unknown, style: ContainerStyle = childStyle(this.style)): void {
    this.setRaw(key, writeValue(value, style, this.traits.asciiOnly));
  }

  delete(key: string): void {
    const at = this.members.findIndex((m) => m.key === key);
    if (at < 0) return;
    this.members.splice(at, 1);
    if (this.seps.length > 0) this.seps.splice(Math.min(at, this.seps.length - 1), 1);
  }

  toText(): string {
    if (this.members.length === 0) return '{}';
    const parts: string[] = ['{', this.open];
    this.members.forEach((m, i) => {
      if (i > 0) parts.push(this.seps[i - 1] as string);
      parts.push(m.head, m.value);
    });
    parts.push(this.close, '}');
    return parts.join('');
  }

  /** A separator for a member added at `at`: a neighbouring one as written, else the style's. */
  private newSep(at: number): string {
    return this.seps[at - 1] ?? this.seps[at] ?? this.style.sep;
  }
}
