import type { JsonLayout } from './layout.js';

/**
 * Serializes a value the way the file's own writer would: the detected indent unit, line break
 * and key separator; strings escaped as json.dumps / JSON.stringify do (they agree with
 * ensure_ascii=False), or with every non-ASCII character as \uXXXX for an ensure_ascii file.
 * `indent` is the indentation of the line the value starts on. Keys keep the object's order.
 */
export function stringifyStyled(value: unknown, layout: JsonLayout, indent: string): string {
  if (typeof value === 'string') return stringifyString(value, layout.asciiOnly);
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const inner = indent + layout.unit;
  const open = layout.eol + inner;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const items = value.map((item) => stringifyStyled(item, layout, inner));
    return `[${open}${items.join(`,${open}`)}${layout.eol}${indent}]`;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return '{}';
  const members = entries.map(
    ([key, item]) => stringifyString(key, layout.asciiOnly) + layout.keySep + stringifyStyled(item, layout, inner),
  );
  return `{${open}${members.join(`,${open}`)}${layout.eol}${indent}}`;
}

export function stringifyString(value: string, asciiOnly: boolean): string {
  const json = JSON.stringify(value);
  if (!asciiOnly) return json;
  // Python's ensure_ascii escapes everything outside printable ASCII, lowercase hex.
  // eslint-disable-next-line no-control-regex -- the ASCII range starts at U+0000 on purpose
  return json.replace(/[^\u0000-\u007e]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Splits a source into lines the way nbformat does (Python's str.splitlines(keepends=True)),
 * so a list-of-lines source reads as Jupyter would have written it.
 */
export function splitSourceLines(source: string): string[] {
  const lines: string[] = [];
  // eslint-disable-next-line no-control-regex -- the line breaks Python's splitlines() knows include VT, FF, FS, GS, RS
  const breaks = /\r\n|[\n\r\u000b\u000c\u001c\u001d\u001e\u0085\u2028\u2029]/g;
  let start = 0;
  for (let match = breaks.exec(source); match !== null; match = breaks.exec(source)) {
    const end = match.index + match[0].length;
    lines.push(source.slice(start, end));
    start = end;
  }
  if (start < source.length) lines.push(source.slice(start));
  return lines;
}
