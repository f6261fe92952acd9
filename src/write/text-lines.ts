import { countLineBreaks } from '../text/line-endings.js';

/** Lines of a text per a final line break does not start another line; "" has 0. */
export function countTextLines(text: string): number {
  if (text === '') return 0;
  const { lf, crlf, cr } = countLineBreaks(text);
  const last = text.charCodeAt(text.length - 1);
  return lf + crlf + cr + (last === 10 || last === 13 ? 0 : 1);
}
