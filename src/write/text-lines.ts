/** Lines of a text per SPEC §5: a final line break does not start another line; "" has 0. */
export function countTextLines(text: string): number {
  if (text === '') return 0;
  let breaks = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === 10) breaks += 1;
    else if (c === 13) {
      breaks += 1;
      if (text.charCodeAt(i + 1) === 10) i += 1;
    }
  }
  const last = text.charCodeAt(text.length - 1);
  return last === 10 || last === 13 ? breaks : breaks + 1;
}
