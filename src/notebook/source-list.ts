import { scanJson, type ScannedValue } from './json-scan.js';
import { writeValue, type ContainerStyle } from './json-style.js';

/**
 * A list-of-lines source written again after an edit: the lines before and after the change keep
 * their bytes as the file wrote them (escapes included), only the lines between are written
 * anew, in the list's own style. So a one-line edit of a long cell changes one line of the file.
 */
export function writeSourceList(
  text: string,
  old: ScannedValue | undefined,
  oldLines: unknown,
  newLines: string[],
  style: ContainerStyle,
  asciiOnly: boolean,
): string {
  if (newLines.length === 0) return '[]';
  const items = old?.kind === 'array' ? (scanJson(text, 1, old.start).items ?? []) : [];
  const before = Array.isArray(oldLines) && oldLines.length === items.length ? (oldLines as unknown[]) : [];
  let head = 0;
  while (head < before.length && head < newLines.length && before[head] === newLines[head]) head++;
  let tail = 0;
  while (
    tail < before.length - head &&
    tail < newLines.length - head &&
    before[before.length - 1 - tail] === newLines[newLines.length - 1 - tail]
  ) {
    tail++;
  }
  const raw = (i: number) => text.slice(items[i]!.start, items[i]!.end);
  const written = newLines.map((line, i) => {
    if (i < head) return raw(i);
    if (i >= newLines.length - tail) return raw(before.length - (newLines.length - i));
    return writeValue(line, style, asciiOnly);
  });
  return `[${style.open}${written.join(style.sep)}${style.close}]`;
}
