/** `Read, Edit, Write and NotebookEdit` (or `… or …`): a list of names for a description. */
export function joinNames(names: readonly string[], conjunction: 'and' | 'or' = 'and'): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} ${conjunction} ${names[names.length - 1]}`;
}
