/** What the peer benchmark's adapters share: the operations, the files, one peer's shape. */
import type { Call } from './support/measure.js';
import type { NotebookFixture } from './support/fixtures.js';

export type OpKey = 'read4k' | 'read100k' | 'readNb' | 'edit' | 'edit1m' | 'write' | 'rewrite' | 'nbEdit';

export interface Op {
  key: OpKey;
  label: string;
}

export const OPS: Op[] = [
  { key: 'read4k', label: 'Read 4 KB' },
  { key: 'read100k', label: 'Read 100 KB' },
  { key: 'readNb', label: 'Read notebook (71 KB)' },
  { key: 'edit', label: 'Edit one line (4 KB file)' },
  { key: 'edit1m', label: 'Edit one line (1 MB file)' },
  { key: 'write', label: 'Write 100 KB' },
  { key: 'rewrite', label: 'Write 100 KB rewriting the file' },
  { key: 'nbEdit', label: 'NotebookEdit one cell (71 KB)' },
];

/** The same bytes for every peer; paths are relative to `root`. */
export interface Workload {
  /** The workspace root (a real path: every peer serves exactly this folder). */
  root: string;
  read4k: string;
  read100k: string;
  read100kLines: number;
  readNb: string;
  notebook: NotebookFixture;
  /** 4 KB text holding the line `marker(0)`. */
  editText: string;
  /** 1 MB text holding the line `marker(0)` near its middle. */
  edit1mText: string;
  /** ~100 KB text whose first line is `marker(0)`. */
  writeText: string;
}

/** The 100 KB content for the n-th write: its first line counts. */
export function writeContent(w: Workload, n: number): string {
  return w.writeText.replace(/^bench marker 0\n/, `bench marker ${n}\n`);
}

const rewritten = new Map<string, string>();

/**
 * The 100 KB content for the n-th whole-file rewrite: two texts in turn that share no line, as
 * a model's whole-file Write usually is (every line of the answer's patch changes).
 */
export function rewriteContent(w: Workload, n: number): string {
  if (n % 2 === 0) return w.writeText;
  let other = rewritten.get(w.writeText);
  if (other === undefined) {
    other = w.writeText.replace(/^/gm, '~ ').replace(/~ $/, '');
    rewritten.set(w.writeText, other);
  }
  return other;
}

export interface Peer {
  name: string;
  /**
   * One call per client for `op`; `files` holds one fresh file per client for the write
   * operations (each client edits its own), or the shared file for reads. A string says why
   * the peer cannot do it.
   */
  calls(op: OpKey, files: string[], w: Workload): Promise<Call[] | string>;
  close(): Promise<void>;
}
