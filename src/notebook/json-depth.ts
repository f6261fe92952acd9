/**
 * Deepest nesting any notebook value may have. Real notebooks stay under ~30 (widget state,
 * JSON outputs); 100,000 levels made re-indenting build a string past V8's limit (500
 * INTERNAL). Past this the file is not parsed as a notebook at all ("answered as
 * INVALID_NOTEBOOK when it cannot be parsed safely").
 */
export const MAX_NOTEBOOK_DEPTH = 512;

/**
 * True when `text` nests objects/arrays deeper than `limit`. One linear pass that skips
 * strings with indexOf; it does not validate the JSON (JSON.parse does that afterwards).
 */
export function nestsDeeperThan(text: string, limit = MAX_NOTEBOOK_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = stringEnd(text, i);
      if (i < 0) return false;
    } else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth -= 1;
    }
  }
  return false;
}

/** Offset of the closing quote of the string opened at `open`, or -1. */
function stringEnd(text: string, open: number): number {
  let from = open + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === 0x5c) slashes += 1;
    if (slashes % 2 === 0) return quote;
    from = quote + 1;
  }
}
