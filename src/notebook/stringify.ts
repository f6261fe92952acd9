/** A JSON string as json.dumps writes it (they agree with JSON.stringify for ensure_ascii=False). */
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
