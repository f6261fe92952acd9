import { toRelative } from '../paths/lexical.js';

/**
 * History key of a resolved path: its real path relative to the root, `/` separators — so a
 * file reached through a link inside the root shares its history with its real name. Also the
 * name the secret guard checks beside the requested one.
 */
export function historyKey(root: string, target: { real: string }): string {
  return toRelative(root, target.real);
}
