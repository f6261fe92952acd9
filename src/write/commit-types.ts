import type fs from 'node:fs';
import type { ResolvedPath } from '../paths/types.js';
import type { Log, WriteContext } from './context.js';
import type { CurrentFile } from './load-current.js';
import type { MergedWrite } from './merge-write.js';
import type { TextPatch } from './patch.js';

/** A multi-file commit also logs an interrupted commit's cause. */
export type CommitContext = WriteContext & { log: Log };

/** One file's change in a multi-file commit, computed under the locks. */
export interface PlannedChange {
  target: ResolvedPath;
  /** The file as loaded under the lock (for the last check and history). */
  current: CurrentFile;
  /** New bytes; null removes the file. */
  bytes: Buffer | null;
  type: 'create' | 'update' | 'delete';
  /** Decoded text before and after (patch, secret guard). */
  before: string;
  after: string;
  /** Mode and owner the new file keeps (a moved file's source); default: the current file's. */
  previous?: fs.Stats | null;
  /** The current bytes' hash when the read state already knew it. */
  knownHash?: string | null;
  /** Set when the change was merged with another writer's (merge-write.ts): `before` is then the current text. */
  merged?: MergedWrite;
  /** The patch from `before` to `after` and the new text's lines, when computed with it (off the loop). */
  patch?: TextPatch;
  total?: number;
}
