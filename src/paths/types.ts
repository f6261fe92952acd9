import type { Stats } from 'node:fs';

/** A request path after checks. */
export interface ResolvedPath {
  /** Relative to the root, `/` separators, as shown in responses. */
  relative: string;
  /** Absolute lexical path inside the root (links not followed). */
  absolute: string;
  /** Real path: every link followed (for a missing file: real parent + name). Lock and read-state key. */
  real: string;
  /** lstat-free stat of `real` (links followed); null when the file does not exist. */
  stat: Stats | null;
  /**
   * The deny globs of the call's access, matched against a root-relative real path: applied
   * again to what is actually opened. Set by the route's resolver;
   * absent only on targets built by hand (nothing denied).
   */
  denied?: (relativeReal: string) => boolean;
}

/** What a call may do with a path: read it, or change it (write deny globs, read-only mode). */
export type Access = 'read' | 'write';
