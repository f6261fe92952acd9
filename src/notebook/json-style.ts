import { scanJson, type ScannedValue } from './json-scan.js';
import { stringifyString } from './stringify.js';

/**
 * The whitespace one JSON container of a file is written with, copied from the file itself so
 * that new text looks like its neighbours whatever the layout: minified, one line, Python's
 * `json.dump` with or without `indent`, tabs, compact cells, CRLF. Only whitespace is learned;
 * tokens are never rewritten.
 */
export interface ContainerStyle {
  /** After the opening bracket, before the first item. */
  open: string;
  /** Between two items, the comma included (`,\n   `, `, ` or `,`). */
  sep: string;
  /** After the last item, before the closing bracket. */
  close: string;
  /** Between a key and its value, the colon included (`: ` or `:`). */
  colon: string;
}

const LINE_BREAK = /\r\n|\n|\r/;

/**
 * The style of a scanned container as the file writes it, or null when it is empty (nothing
 * to learn). What one item cannot show (the separator) comes from `context`.
 */
export function learnStyle(text: string, node: ScannedValue, context: ContainerStyle | null): ContainerStyle | null {
  const starts = node.members?.map((m) => m.keyStart) ?? node.items?.map((i) => i.start) ?? [];
  const ends = node.members?.map((m) => m.value.end) ?? node.items?.map((i) => i.end) ?? [];
  if (starts.length === 0) return null;
  const open = text.slice(node.start + 1, starts[0]);
  const close = text.slice(ends[ends.length - 1], node.end - 1);
  const member = node.members?.[0];
  const colon = member !== undefined ? text.slice(member.keyEnd, member.value.start) : (context?.colon ?? ': ');
  const sep = starts.length > 1 ? text.slice(ends[0], starts[1]) : guessSep(open, context);
  return { open, sep, close, colon };
}

/** A separator for a container with one item: its line break and indent, else the file's inline spacing. */
function guessSep(open: string, context: ContainerStyle | null): string {
  if (LINE_BREAK.test(open)) return `,${open}`;
  if (context === null) return ', ';
  return LINE_BREAK.test(context.sep) ? ', ' : context.sep;
}

/** The style of `text`'s array or object starting at `start`, scanned one level deep. */
export function styleAt(text: string, start: number, context: ContainerStyle | null): ContainerStyle | null {
  return learnStyle(text, scanJson(text, 1, start), context);
}

/**
 * The style of a container nested one level inside one of `parent`'s items: one more level of
 * the parent's own indentation when the parent breaks lines, else the parent's inline spacing.
 */
export function childStyle(parent: ContainerStyle): ContainerStyle {
  const found = LINE_BREAK.exec(parent.open);
  if (found === null) return parent;
  const eol = found[0];
  const inner = parent.open.slice(found.index + eol.length);
  const outerBreak = LINE_BREAK.exec(parent.close);
  const outer = outerBreak === null ? '' : parent.close.slice(outerBreak.index + outerBreak[0].length);
  const unit = inner.length > outer.length && inner.startsWith(outer) ? inner.slice(outer.length) : inner === '' ? '' : ' ';
  const deeper = inner + unit;
  return { open: eol + deeper, sep: `,${eol}${deeper}`, close: eol + inner, colon: parent.colon };
}

/**
 * Serializes a value in a style: `style` is the style of the value itself when it is a
 * container (its items get childStyle). Strings are escaped as json.dumps does, with every
 * non-ASCII character as \uXXXX for an ensure_ascii file. Empty containers are `[]` and `{}`.
 */
export function writeValue(value: unknown, style: ContainerStyle, asciiOnly: boolean): string {
  if (typeof value === 'string') return stringifyString(value, asciiOnly);
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const inner = childStyle(style);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const items = value.map((item) => writeValue(item, inner, asciiOnly));
    return `[${style.open}${items.join(style.sep)}${style.close}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return '{}';
  const members = entries.map(([key, item]) => stringifyString(key, asciiOnly) + style.colon + writeValue(item, inner, asciiOnly));
  return `{${style.open}${members.join(style.sep)}${style.close}}`;
}
