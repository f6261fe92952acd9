import type { ScannedValue } from './json-scan.js';

/**
 * What a notebook file's writer did beyond whitespace, learned from its own text so new text
 * matches it. Whitespace is learned where it is needed, from the neighbours (json-style.ts).
 */
export interface JsonTraits {
  /** Non-ASCII written as \uXXXX (Python's ensure_ascii=True), detected from the file. */
  asciiOnly: boolean;
  /** Keys sorted (Jupyter's sort_keys=True): new and converted cells sort theirs too. */
  sortedKeys: boolean;
}

export function detectTraits(text: string, root: ScannedValue, cells: ScannedValue): JsonTraits {
  return { asciiOnly: detectAsciiOnly(text), sortedKeys: keysSorted(root, cells) };
}

function detectAsciiOnly(text: string): boolean {
  // eslint-disable-next-line no-control-regex -- the ASCII range starts at U+0000 on purpose
  if (/[^\u0000-\u007f]/.test(text)) return false;
  return /\\u(?!00[0-7])[0-9a-fA-F]{4}/.test(text);
}

/** Whether cells sort their keys; with no cell to learn from, whether the root does. */
function keysSorted(root: ScannedValue, cells: ScannedValue): boolean {
  const items = cells.items ?? [];
  if (items.length === 0) return isSorted(root.members?.map((m) => m.key) ?? []);
  return items.every((cell) => isSorted(cell.members?.map((m) => m.key) ?? []));
}

function isSorted(keys: string[]): boolean {
  for (let i = 1; i < keys.length; i++) {
    if ((keys[i - 1] as string) > (keys[i] as string)) return false;
  }
  return true;
}
