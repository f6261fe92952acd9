/**
 * Placeholders: new text that adds a line saying code was left out
 * (`// ... existing code ...`, `# rest of the file unchanged`, `<!-- rest of the page -->`) is
 * refused unless the replaced text had the same line — the model would otherwise delete the
 * code the line stands for.
 *
 * Decisions:
 * - Only a line that is a comment (or starts with an ellipsis) and nothing else can be one, and
 *   its words must be one of the omission phrases below in full: code is never a placeholder
 *   (a bare `...`, `pass`, `...args`), nor is prose that mentions "the rest of" in a sentence.
 * - A cheap test of the whole text comes first, so a large Write without such words costs one
 *   regex scan.
 */

export interface PlaceholderHit {
  /** 1-based line in the new text. */
  line: number;
  text: string;
}

const WORDS = /rest of|existing|unchanged|the same|omitted|remaining|as before|for brevity|stays?\b|remains?\b/i;
const COMMENT = /^(?:\/\/+|#+|\/\*+|\*+|<!--|--|;+|%+|\{\/\*)\s*(.*?)\s*(?:\*+\/\}?|-->)?$/i;
const ELLIPSIS = /^(?:\.{3}|…)/;
const KEYWORDS =
  /\b(existing|rest|unchanged|same|omitted|remaining|previous|other|code|here|etc|implementation|methods?|functions?|truncated|before|above|below)\b/i;

const PHRASES: RegExp[] = [
  /^(?:the )?rest of (?:the |this |your )?\w+(?: \w+)?(?: (?:is |are |remains? |stays? |goes )?(?:unchanged|the same|omitted|as before|here|as is|follows))?$/,
  /^(?:all )?(?:other|remaining|existing|previous) \w+(?: \w+)?(?: (?:stay|stays|remain|remains|are|is|go|goes))? ?(?:unchanged|the same|as before|omitted|here|as is)$/,
  /^(?:keep )?existing (?:\w+)(?: (?:here|unchanged|remains?|as before|the same|goes here|stays?(?: the same)?))?$/,
  /^\w+(?: \w+)? (?:unchanged|omitted(?: for brevity)?|truncated(?: for brevity)?)$/,
  /^(?:unchanged|same as before|omitted for brevity)(?: \w+)?$/,
];

/** False when `text` holds no omission phrase at all: then no line of it is a placeholder. */
export function mayHoldPlaceholder(text: string): boolean {
  return WORDS.test(text);
}

/** The first line of `newText` that is a placeholder `replacedText` does not have, or null. */
export function detectPlaceholder(newText: string, replacedText: string): PlaceholderHit | null {
  if (!WORDS.test(newText)) return null;
  let had: Set<string> | null = null;
  const lines = newText.split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i]!;
    if (!WORDS.test(line) || !isPlaceholder(line.trim())) continue;
    had ??= new Set(replacedText.split(/\r\n|\r|\n/).map((l) => l.trim()));
    if (!had.has(line.trim())) return { line: i + 1, text: line };
  }
  return null;
}

export function isPlaceholder(trimmed: string): boolean {
  const m = COMMENT.exec(trimmed);
  const body = m ? m[1]! : ELLIPSIS.test(trimmed) ? trimmed : null;
  if (body === null) return false;
  if (ELLIPSIS.test(body) && KEYWORDS.test(body)) return true;
  const words = body
    .toLowerCase()
    .replace(/\.{3}|…/g, ' ')
    .replace(/[.,:;!()[\]-]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return PHRASES.some((p) => p.test(words));
}

export function placeholderMessage(field: string, hit: PlaceholderHit): string {
  return (
    `${field} line ${hit.line} is an omission placeholder: "${hit.text.trim()}". Nothing is filled in for it, so writing it ` +
    `would delete the code it stands for. Send the full text in its place (or a smaller edit that leaves that code out of old_string), ` +
    `or set allow_placeholders: true if the line is meant literally.`
  );
}
