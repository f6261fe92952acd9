import { structuredPatch } from 'diff';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { commonHead, commonTail, countBreaks, lineStart } from './common-ends.js';
import { sampledMinEditLength } from './edit-length-bound.js';
import { oneLineHunk } from './one-line-hunk.js';
import { regionLinesJson, utf8Unpooled } from './packed-hunk.js';
import { MAX_REGION_CHARS, RegionHunk } from './region-hunk.js';
import type { TextView } from './spliced-text.js';
import { wholeRegion, wholeRegionSteps, type HunkHeader, type PatchHunk } from './whole-hunk.js';

export type { PatchHunk } from './whole-hunk.js';

export interface TextPatch {
  hunks: PatchHunk[];
  additions: number;
  deletions: number;
}

const DEFAULT_CONTEXT = 4;
/** Common lines kept beyond the context on each side of the changed lines. */
const WINDOW_MARGIN = 64;

/**
 * "Bounded work". Myers costs about D² + D·N for D edits over N lines, so D is capped
 * at MAX_EDIT_LENGTH (D² part) and at LINE_BUDGET / N (long runs of equal lines). Past the cap
 * the changed region becomes one whole-region hunk. Measured on this machine: the capped search
 * takes under ~70 ms, so no diff holds the event loop long. Below MIN_EDIT_LENGTH the search
 * is not worth tokenizing the text for: the fallback is taken at once.
 */
const MAX_EDIT_LENGTH = 1000;
const LINE_BUDGET = 20_000_000;
const MIN_EDIT_LENGTH = 50;
/** A safety net for pathological inputs (very long equal lines); the caps above are the bound. */
const DIFF_TIMEOUT_MS = 100;

/**
 * The change from `before` to `after` as structuredPatch hunks, with line counts — the one
 * bounded diff every caller uses (structured_patch, git_diff, stale diffs).
 *
 * Diffing a 1 MB file for a one-line edit costs more than writing it, so the diff runs on the
 * changed lines plus `context + margin` common lines each side, and the hunks are moved back
 * to file line numbers. Cutting common lines keeps the diff minimal (same additions and
 * deletions); only where several minimal alignments exist (repeated lines) can the diff
 * package's choice among them differ from a whole-file run. When the changed region needs more
 * edits than the budget allows (a rewrite of every line), it is one hunk replacing the region:
 * time and memory stay linear in the size of the text.
 */
export function makePatch(name: string, before: string, after: TextView, context = DEFAULT_CONTEXT, margin = WINDOW_MARGIN): TextPatch {
  const steps = patchSteps(name, before, after, context, margin);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * makePatch for a caller that must not hold the event loop (the write pipeline, git_diff):
 * the same patch, with other calls let in between slices of a large whole-region hunk. `after`
 * may be a SplicedText (spliced-text.ts): only the lines around the change are cut from it.
 */
export async function makePatchSliced(name: string, before: string, after: TextView, context = DEFAULT_CONTEXT): Promise<TextPatch> {
  const steps = patchSteps(name, before, after, context, WINDOW_MARGIN);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await nextTurn();
  }
}

/**
 * makePatchSliced for an answer (Write): the same patch, but a whole-region hunk of up to
 * MAX_REGION_CHARS is a RegionHunk, whose lines are written into the answer's JSON straight
 * from the texts instead of being made one string each (region-hunk.ts).
 */
export async function makeAnswerPatch(name: string, before: string, after: string, context = DEFAULT_CONTEXT): Promise<TextPatch> {
  const plan = planPatch(name, before, after, context, WINDOW_MARGIN);
  if ('hunks' in plan) return { hunks: plan.hunks, ...(plan.counts ?? countLines(plan.hunks)) };
  const { whole } = plan;
  if (whole.before.length + whole.after.length > MAX_REGION_CHARS) {
    const steps = wholeRegionSteps(whole.before, whole.after, context, whole.skippedLines);
    for (;;) {
      await nextTurn();
      const step = steps.next();
      if (step.done) return step.value;
    }
  }
  const region = wholeRegion(whole.before, whole.after, context, whole.skippedLines);
  if (region === null) return { hunks: [], additions: 0, deletions: 0 };
  const hunk = new RegionHunk(region, whole.before, whole.after, context, whole.skippedLines);
  return { hunks: [hunk], additions: region.additions, deletions: region.deletions };
}

/** The capped Myers hunks, or the window whose changed region becomes one whole-region hunk. */
type PatchPlan = { hunks: PatchHunk[]; counts?: { additions: number; deletions: number } } | { whole: DiffWindow };

function planPatch(name: string, before: string, after: TextView, context: number, margin: number): PatchPlan {
  const window = diffWindow(before, after, context + margin);
  // Bounded whatever the window: it looks at the changed line and its context only.
  const one = oneLineHunk(window.before, window.after, context);
  if (one) {
    const hunk = { ...one, oldStart: one.oldStart + window.skippedLines, newStart: one.newStart + window.skippedLines };
    return { hunks: [hunk], counts: { additions: 1, deletions: 1 } };
  }
  const lines = countBreaks(window.before, window.before.length) + countBreaks(window.after, window.after.length) + 2;
  const maxEditLength = Math.floor(Math.min(MAX_EDIT_LENGTH, LINE_BUDGET / lines));
  const patch =
    maxEditLength < MIN_EDIT_LENGTH || sampledMinEditLength(window.before, window.after, maxEditLength) > maxEditLength
      ? undefined
      : structuredPatch(name, name, window.before, window.after, undefined, undefined, {
          context,
          maxEditLength,
          timeout: DIFF_TIMEOUT_MS,
        });
  if (patch === undefined) return { whole: window };
  const hunks = patch.hunks.map((h) => ({
    oldStart: h.oldStart + window.skippedLines,
    oldLines: h.oldLines,
    newStart: h.newStart + window.skippedLines,
    newLines: h.newLines,
    lines: h.lines,
  }));
  return { hunks };
}

function* patchSteps(name: string, before: string, after: TextView, context: number, margin: number): Generator<void, TextPatch> {
  const plan = planPatch(name, before, after, context, margin);
  if ('hunks' in plan) return { hunks: plan.hunks, ...(plan.counts ?? countLines(plan.hunks)) };
  yield;
  const { whole } = plan;
  return yield* wholeRegionSteps(whole.before, whole.after, context, whole.skippedLines);
}

/** A patch whose hunks carry the JSON text of their lines (see PackedHunk) instead of the lines. */
export interface JsonPatch {
  hunks: Array<HunkHeader & { linesJson: Uint8Array }>;
  additions: number;
  deletions: number;
}

/**
 * makePatch as JSON, for the worker thread: the same hunks, each hunk's lines as
 * JSON.stringify(lines) gives them, in UTF-8 (each in an ArrayBuffer of its own, to transfer). A whole-region hunk is written straight from the texts, so
 * a 10,000,000-line region never becomes 10,000,000 strings.
 */
export function makeJsonPatch(name: string, before: string, after: TextView, context = DEFAULT_CONTEXT): JsonPatch {
  const plan = planPatch(name, before, after, context, WINDOW_MARGIN);
  if ('hunks' in plan) {
    const hunks = plan.hunks.map(({ lines, ...header }) => ({ ...header, linesJson: utf8Unpooled(JSON.stringify(lines)) }));
    return { hunks, ...countLines(plan.hunks) };
  }
  const region = wholeRegion(plan.whole.before, plan.whole.after, context, plan.whole.skippedLines);
  if (region === null) return { hunks: [], additions: 0, deletions: 0 };
  return {
    hunks: [{ ...region.header, linesJson: regionLinesJson(region.parts) }],
    additions: region.additions,
    deletions: region.deletions,
  };
}

interface DiffWindow {
  before: string;
  after: string;
  /** Whole lines cut from the start of both. */
  skippedLines: number;
}

/** Cuts common whole lines at both ends, keeping `context` of them on each side. */
function diffWindow(before: string, after: TextView, context: number): DiffWindow {
  const limit = Math.min(before.length, after.length);
  const head = commonHead(before, after, limit);
  if (head === before.length && head === after.length) return { before, after: after.slice(0, after.length), skippedLines: 0 };
  const tail = commonTail(before, after, limit - head);
  // Start: the line of the first difference, then `context` lines back (all common).
  let start = lineStart(before, head);
  for (let kept = 0; kept < context && start > 0; kept += 1) start = lineStart(before, start - 1);
  // End: through the line holding the common tail's start, then `context` whole lines more.
  let end = before.indexOf('\n', before.length - tail);
  for (let kept = 0; kept < context && end !== -1; kept += 1) end = before.indexOf('\n', end + 1);
  const cut = end === -1 ? 0 : before.length - (end + 1);
  return {
    before: before.slice(start, before.length - cut),
    after: after.slice(start, after.length - cut),
    skippedLines: countBreaks(before, start),
  };
}

export function countLines(hunks: PatchHunk[]): { additions: number; deletions: number } {
  let additions = 0;
  let deletions = 0;
  for (const hunk of hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) additions += 1;
      else if (line.startsWith('-')) deletions += 1;
    }
  }
  return { additions, deletions };
}

/** Unified diff text in git's layout (`diff --git`, `/dev/null` for a side that is absent). */
export function formatGitPatch(rel: string, hunks: PatchHunk[], absent: { before: boolean; after: boolean }): string {
  if (hunks.length === 0) return '';
  const out = [`diff --git a/${rel} b/${rel}`];
  if (absent.before) out.push('new file mode 100644');
  if (absent.after) out.push('deleted file mode 100644');
  out.push(absent.before ? '--- /dev/null' : `--- a/${rel}`);
  out.push(absent.after ? '+++ /dev/null' : `+++ b/${rel}`);
  for (const h of hunks) {
    out.push(`@@ -${range(h.oldStart, h.oldLines)} +${range(h.newStart, h.newLines)} @@`);
    // A loop, not push(...lines): a whole-region hunk can hold millions of lines.
    for (const line of h.lines) out.push(line);
  }
  return `${out.join('\n')}\n`;
}

/** As git and the diff package print it: an empty range names the line before it. */
function range(start: number, lines: number): string {
  if (lines === 0) return `${start - 1},0`;
  return lines === 1 ? String(start) : `${start},${lines}`;
}
