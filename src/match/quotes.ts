/**
 * Curly-quote fallback: models often type straight quotes where the file
 * has typographic ones. Folding keeps string lengths, so offsets stay valid.
 */
const CURLY = /[\u2018\u2019\u201C\u201D]/g;

export function foldQuotes(s: string): string {
  return s.replace(CURLY, (c) => (c === '\u2018' || c === '\u2019' ? "'" : '"'));
}

export interface QuoteKinds {
  single: boolean;
  double: boolean;
}

/** Which kinds of quote are curly in the matched text. */
export function curlyKinds(matched: string): QuoteKinds {
  return { single: /[\u2018\u2019]/.test(matched), double: /[\u201C\u201D]/.test(matched) };
}

const OPENERS_AFTER = /[\s([{]/u;
const LETTER = /\p{L}/u;

/**
 * Makes the straight quotes of `text` of the given kinds curly: at the start, after
 * whitespace or after `([{` an opening quote; an apostrophe between letters ’; else closing.
 */
export function curlQuotes(text: string, kinds: QuoteKinds): string {
  let out = '';
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i]!;
    const kind = c === "'" ? 'single' : c === '"' ? 'double' : null;
    if (kind === null || !kinds[kind]) {
      out += c;
      continue;
    }
    const prev = i > 0 ? text[i - 1]! : '';
    const next = i + 1 < text.length ? text[i + 1]! : '';
    if (kind === 'single' && LETTER.test(prev) && LETTER.test(next)) out += '\u2019';
    else if (prev === '' || OPENERS_AFTER.test(prev)) out += kind === 'single' ? '\u2018' : '\u201C';
    else out += kind === 'single' ? '\u2019' : '\u201D';
  }
  return out;
}
