import path from 'node:path';
import { ToolError } from '../errors.js';
import { LINES_PER_STEP, runSliced, runSync, splitLinesSteps, type Steps, type TextLines } from './steps.js';

/**
 * The V4A patch format — what OpenAI's models emit — parsed into file operations.
 *
 * Choices, following Codex's parser (codex-rs/apply-patch) where the format is silent:
 * - Lenient about whitespace around markers (`  *** Update File: a`, `*** End Patch `), about
 *   CRLF patch text, and about a heredoc wrapper (`<<'EOF'` … `EOF`) a shell-minded model adds.
 * - The first hunk of an Update may start without `@@`; later hunks need one.
 * - Consecutive `@@ <anchor>` lines are nested anchors: each is found after the one before.
 * - Inside a hunk an empty line is an empty context line; blank lines between hunks and
 *   between file sections are skipped.
 * - A file named twice (as a source or a Move target) is PATCH_INVALID at its second mention.
 * Every error is PATCH_INVALID with `details.line` (1-based, in the text sent).
 */

export type HunkLine = { kind: ' ' | '-' | '+'; text: string };

export interface Hunk {
  /** `@@ text` anchors, outermost first (empty when the hunk has a bare `@@` or none). */
  anchors: string[];
  lines: HunkLine[];
  /** `*** End of File`: the hunk's old lines end the file. */
  endOfFile: boolean;
  /** 1-based line of the hunk's first line in the patch text. */
  line: number;
}

export type FileOp =
  | { kind: 'add'; path: string; line: number; lines: string[] }
  | { kind: 'delete'; path: string; line: number }
  | { kind: 'update'; path: string; line: number; moveTo: string | null; hunks: Hunk[] };

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const ADD = '*** Add File: ';
const DELETE = '*** Delete File: ';
const UPDATE = '*** Update File: ';
const MOVE = '*** Move to: ';
const EOF_MARK = '*** End of File';
const UNIFIED_RANGE = /^-\d+(?:,\d+)? \+\d+(?:,\d+)? @@/;

export function patchInvalid(line: number, message: string, extra: Record<string, unknown> = {}): ToolError {
  return new ToolError('PATCH_INVALID', `Invalid patch at line ${line}: ${message}`, { line, ...extra });
}

/** Line cursor over the patch; `at` is 0-based, `offset` maps it to the text's 1-based lines. */
class Cursor {
  at = 0;
  constructor(
    readonly lines: TextLines,
    readonly offset: number,
    readonly end: number,
  ) {}
  get done(): boolean {
    return this.at >= this.end;
  }
  get peek(): string {
    return this.lines.line(this.at);
  }
  get lineNo(): number {
    return this.at + this.offset + 1;
  }
}

/** `*** Begin Patch` … `*** End Patch` → the file operations, in patch order. */
export function parsePatch(text: string): FileOp[] {
  return runSync(patchSteps(text));
}

/** parsePatch, letting other calls run between slices (a patch of megabytes). */
export function parsePatchSliced(text: string): Promise<FileOp[]> {
  return runSliced(patchSteps(text));
}

function* patchSteps(text: string): Steps<FileOp[]> {
  const lines = yield* splitLinesSteps(text);
  let first = 0;
  let last = lines.length - 1;
  while (first <= last && lines.line(first).trim() === '') first += 1;
  while (last >= first && lines.line(last).trim() === '') last -= 1;
  // A heredoc wrapper, as in `apply_patch <<'EOF'`: the patch is what it wraps.
  if (last - first >= 3 && /^<<(['"]?)EOF\1$/.test(lines.line(first).trim()) && lines.line(last).trim().endsWith('EOF')) {
    first += 1;
    last -= 1;
  }
  if (first > last || lines.line(first).trim() !== BEGIN) {
    throw patchInvalid(Math.max(1, Math.min(first, lines.length - 1) + 1), `the first line of the patch must be '${BEGIN}'.`);
  }
  if (last === first || lines.line(last).trim() !== END) {
    throw patchInvalid(last + 1, `the last line of the patch must be '${END}'.`);
  }
  const cur = new Cursor(lines, 0, last);
  cur.at = first + 1;
  const ops: FileOp[] = [];
  while (!cur.done) {
    if (cur.peek.trim() === '') {
      cur.at += 1;
      continue;
    }
    ops.push(yield* parseFileSection(cur));
    yield;
  }
  if (ops.length === 0) throw patchInvalid(last + 1, 'the patch has no file section (*** Add File, *** Delete File or *** Update File).');
  assertDistinctPaths(ops);
  return ops;
}

function* parseFileSection(cur: Cursor): Steps<FileOp> {
  const header = cur.peek.trim();
  const line = cur.lineNo;
  cur.at += 1;
  if (header.startsWith(ADD)) return { kind: 'add', path: pathOf(header, ADD, line), line, lines: yield* parseAddLines(cur) };
  if (header.startsWith(DELETE)) return { kind: 'delete', path: pathOf(header, DELETE, line), line };
  if (header.startsWith(UPDATE)) {
    const file = pathOf(header, UPDATE, line);
    let moveTo: string | null = null;
    if (!cur.done && cur.peek.trim().startsWith(MOVE)) {
      moveTo = pathOf(cur.peek.trim(), MOVE, cur.lineNo);
      cur.at += 1;
    }
    const hunks = yield* parseHunks(cur);
    if (hunks.length === 0)
      throw patchInvalid(line, `the Update of '${file}' has no hunk (a '@@' line followed by ' ', '-' and '+' lines).`);
    return { kind: 'update', path: file, line, moveTo, hunks };
  }
  throw patchInvalid(
    line,
    `'${header}' is not a file header. Each file section starts with '*** Add File: <path>', '*** Delete File: <path>' or '*** Update File: <path>'.`,
  );
}

function pathOf(header: string, marker: string, line: number): string {
  const p = header.slice(marker.length).trim();
  if (p === '') throw patchInvalid(line, `'${marker.trim()}' names no path.`);
  return p;
}

/** An Added file's lines: each starts with `+`; they end at the first line that does not. */
function* parseAddLines(cur: Cursor): Steps<string[]> {
  const out: string[] = [];
  while (!cur.done && cur.peek.startsWith('+')) {
    out.push(cur.lines.line(cur.at, 1));
    cur.at += 1;
    if (out.length % LINES_PER_STEP === 0) yield;
  }
  return out;
}

/** An Update's hunks, up to the next `***` line. */
function* parseHunks(cur: Cursor): Steps<Hunk[]> {
  const hunks: Hunk[] = [];
  while (!cur.done) {
    const line = cur.peek;
    if (line.trim() === '') {
      cur.at += 1;
      continue;
    }
    if (line.trimStart().startsWith('***')) break;
    hunks.push(yield* parseHunk(cur, hunks.length === 0));
    yield;
  }
  return hunks;
}

function isAnchor(line: string): boolean {
  return line === '@@' || line.startsWith('@@ ') || line.trim() === '@@';
}

function* parseHunk(cur: Cursor, first: boolean): Steps<Hunk> {
  const start = cur.lineNo;
  const anchors: string[] = [];
  let sawMarker = false;
  while (!cur.done && isAnchor(cur.peek)) {
    sawMarker = true;
    const anchor = cur.peek.trim().slice(2).trim();
    // A unified-diff range (`@@ -12,4 +12,5 @@`) some models add locates nothing: a bare `@@`.
    if (anchor !== '' && !UNIFIED_RANGE.test(anchor)) anchors.push(anchor);
    cur.at += 1;
  }
  if (!sawMarker && !first) {
    throw patchInvalid(
      cur.lineNo,
      `expected a hunk starting with '@@', got '${cur.peek}'. Every line of a hunk starts with ' ' (context), '-' (removed) or '+' (added).`,
    );
  }
  const hunk: Hunk = { anchors, lines: [], endOfFile: false, line: start };
  while (!cur.done) {
    const line = cur.peek;
    if (line.trim() === EOF_MARK) {
      if (hunk.lines.length === 0) break;
      hunk.endOfFile = true;
      cur.at += 1;
      break;
    }
    const kind = line === '' ? ' ' : line[0];
    if (kind !== ' ' && kind !== '-' && kind !== '+') break;
    hunk.lines.push({ kind, text: cur.lines.line(cur.at, 1) });
    cur.at += 1;
    if (hunk.lines.length % LINES_PER_STEP === 0) yield;
  }
  if (hunk.lines.length === 0) {
    const what = cur.done ? 'the patch ends' : `'${cur.peek}' follows`;
    throw patchInvalid(
      cur.done ? start : cur.lineNo,
      `the hunk has no lines (${what}). Every line of a hunk starts with ' ' (context), '-' (removed) or '+' (added).`,
    );
  }
  return hunk;
}

/** A file may be named once: as the file of a section or as a Move target. */
function assertDistinctPaths(ops: FileOp[], lineOf: (op: FileOp) => Record<string, unknown> = () => ({})): void {
  const seen = new Set<string>();
  const check = (p: string, op: FileOp) => {
    const key = path.posix.normalize(p.replaceAll('\\', '/')).replace(/^\.\//, '');
    if (seen.has(key)) throw patchInvalid(op.line, `the patch names ${p} twice; give all changes to a file in one section.`, lineOf(op));
    seen.add(key);
  };
  for (const op of ops) {
    check(op.path, op);
    if (op.kind === 'update' && op.moveTo !== null) check(op.moveTo, op);
  }
}

/** One `apply_patch_call.operation` of the Responses API. */
export interface PatchOperation {
  type: 'create_file' | 'update_file' | 'delete_file';
  path: string;
  diff?: string | null;
  move_to?: string | null;
}

/**
 * The Responses API's operations → the same file operations. `diff` is a V4A body without the
 * envelope: `+` lines for create_file, hunks for update_file. Errors name the operation
 * (`details.operation`, 0-based) and the line within its diff.
 */
export function parseOperations(operations: PatchOperation[]): FileOp[] {
  return runSync(operationsSteps(operations));
}

/** parseOperations, letting other calls run between slices (a diff of megabytes). */
export function parseOperationsSliced(operations: PatchOperation[]): Promise<FileOp[]> {
  return runSliced(operationsSteps(operations));
}

function* operationsSteps(operations: PatchOperation[]): Steps<FileOp[]> {
  const ops: FileOp[] = [];
  for (const [index, op] of operations.entries()) {
    try {
      ops.push(yield* parseOperation(op));
    } catch (err) {
      if (err instanceof ToolError && err.code === 'PATCH_INVALID') {
        throw new ToolError('PATCH_INVALID', `Operation ${index} (${op.type} ${op.path}): ${err.message}`, {
          ...err.details,
          operation: index,
        });
      }
      throw err;
    }
  }
  assertDistinctPaths(ops, (op) => ({ operation: ops.indexOf(op) }));
  return ops;
}

function* parseOperation(op: PatchOperation): Steps<FileOp> {
  const lines = yield* splitLinesSteps(op.diff ?? '');
  if (op.type === 'delete_file') return { kind: 'delete', path: op.path, line: 1 };
  const cur = new Cursor(lines, 0, lines.length);
  if (op.type === 'create_file') {
    const added = yield* parseAddLines(cur);
    if (!cur.done) throw patchInvalid(cur.lineNo, `every line of a create_file diff starts with '+'; got '${cur.peek}'.`);
    return { kind: 'add', path: op.path, line: 1, lines: added };
  }
  const hunks = yield* parseHunks(cur);
  if (!cur.done) throw patchInvalid(cur.lineNo, `unexpected '${cur.peek}' in an update_file diff (it holds hunks only).`);
  if (hunks.length === 0) throw patchInvalid(1, `the update_file diff of '${op.path}' has no hunk.`);
  return { kind: 'update', path: op.path, line: 1, moveTo: op.move_to ?? null, hunks };
}
