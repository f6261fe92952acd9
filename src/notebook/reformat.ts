import { isJsonSpace } from './json-scan.js';

/**
 * Re-indents valid JSON without touching a token: strings (escapes included), numbers (1.0 stays
 * 1.0) and key order are copied as they are; only the whitespace between tokens changes, to
 * json.dumps(indent=1)'s layout. Used for a notebook in no recognizable layout, so that
 * even then nothing but whitespace moves outside the edited cell. Text after the root value
 * (a trailing newline, or none) is kept.
 */
export function reformatJson(text: string, unit: string, eol: string): string {
  const out: string[] = [];
  let level = 0;
  let pos = 0;
  const newline = (): string => eol + unit.repeat(level);
  while (pos < text.length && isJsonSpace(text.charCodeAt(pos))) pos++;
  const begin = pos;
  let end = text.length;
  while (end > begin && isJsonSpace(text.charCodeAt(end - 1))) end--;
  while (pos < end) {
    const ch = text[pos] as string;
    if (ch === '"') {
      const close = stringEnd(text, pos);
      out.push(text.slice(pos, close));
      pos = close;
      continue;
    }
    pos++;
    if (isJsonSpace(ch.charCodeAt(0))) continue;
    if (ch === '{' || ch === '[') {
      const next = nextToken(text, pos);
      if (text[next] === (ch === '{' ? '}' : ']')) {
        out.push(ch === '{' ? '{}' : '[]');
        pos = next + 1;
      } else {
        level++;
        out.push(ch + newline());
      }
    } else if (ch === '}' || ch === ']') {
      level--;
      out.push(newline() + ch);
    } else if (ch === ',') {
      out.push(',' + newline());
    } else if (ch === ':') {
      out.push(': ');
    } else {
      out.push(ch);
    }
  }
  return text.slice(0, begin) + out.join('') + text.slice(end);
}

function nextToken(text: string, pos: number): number {
  while (pos < text.length && isJsonSpace(text.charCodeAt(pos))) pos++;
  return pos;
}

/** Offset just after the string that opens at `pos`. */
function stringEnd(text: string, pos: number): number {
  let from = pos + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return text.length;
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === 0x5c) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}
