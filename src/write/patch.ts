import { structuredPatch } from 'diff';

/** One hunk, exactly as the diff package's structuredPatch returns it. */
export interface PatchHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

export interface TextPatch {
  hunks: PatchHunk[];
  additions: number;
  deletions: number;
}

/** The change from `before` to `after` as structuredPatch hunks, with line counts. */
export function makePatch(name: string, before: string, after: string, context?: number): TextPatch {
  const options = context === undefined ? {} : { context };
  const patch = structuredPatch(name, name, before, after, undefined, undefined, options);
  const hunks = patch.hunks.map((h) => ({
    oldStart: h.oldStart,
    oldLines: h.oldLines,
    newStart: h.newStart,
    newLines: h.newLines,
    lines: h.lines,
  }));
  return { hunks, ...countLines(hunks) };
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
    out.push(...h.lines);
  }
  return `${out.join('\n')}\n`;
}

function range(start: number, lines: number): string {
  return lines === 1 ? String(start) : `${start},${lines}`;
}
