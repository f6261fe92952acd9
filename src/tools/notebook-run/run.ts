import type { Stats } from 'node:fs';
import { ToolError } from '../../errors.js';
import { KernelDiedError, notConfigured } from '../../jupyter/kernel-errors.js';
import { shuttingDown, type Kernel, type KernelPool } from '../../jupyter/kernel-pool.js';
import { openNotebook } from '../../notebook/document.js';
import { isObject, parseNotebook, type JsonObject } from '../../notebook/model.js';
import { isNotebookPath } from '../../notebook/notebook-path.js';
import { summarizeOutput } from '../../notebook/outputs.js';
import { renderCell } from '../../notebook/render.js';
import { assertRoundTrips, decodeText } from '../../text/codec.js';
import { encodingOverrideFor } from '../../text/overrides.js';
import { openTargetDir } from '../../write/atomic-writer.js';
import { loadCurrent } from '../../write/load-current.js';
import { checkReadOrBase } from '../../write/staleness.js';
import type { ResolvedPath, ToolContext, ToolOutput } from '../types.js';
import { matchCells, planCells, type PlannedCell } from './cell-plan.js';
import type { CellRun, NotebookRunInput, NotebookRunResult } from './schema.js';
import { writeOutputs, type FinishedCell, type RunBase } from './write-outputs.js';

/**
 * NotebookRun. Every check on the notebook and the cells comes first (WRONG_TOOL, read first and
 * unchanged, INVALID_NOTEBOOK, CELL_NOT_FOUND, a cell that is not code); then the notebook's
 * kernel runs the cells (kernel-pool.ts), and the outputs of the cells that finished are
 * written once at the end (write-outputs.ts), the file locked only while writing.
 */
export async function runNotebookRun(
  input: NotebookRunInput,
  ctx: ToolContext,
  target: ResolvedPath,
  pool: () => KernelPool | null,
): Promise<ToolOutput<NotebookRunResult>> {
  if (!isNotebookPath(target.relative)) {
    throw new ToolError(
      'WRONG_TOOL',
      `${target.relative} is not a Jupyter notebook (.ipynb). NotebookRun runs the code cells of a notebook.`,
    );
  }
  const { base, cells, seen, kernelName } = await loadBase(ctx, target);
  const planned = planRun(target, cells, seen, input, ctx.readState.get(ctx.session, target.real)?.positions);
  const kernels = pool();
  if (kernels === null) throw notConfigured();
  const finished: FinishedCell[] = [];
  const runs: CellRun[] = [];
  let died: { cell: PlannedCell; why: string } | null = null;
  const request = { key: target.real, path: target.relative, kernelName, session: ctx.session, restart: input.restart };
  await kernels.run(request, async (kernel) => {
    const deadline = Date.now() + input.timeout_ms;
    for (const cell of planned) {
      // Shutting down: no further cell starts (the running one was interrupted).
      if (kernels.stopping) return;
      let outcome;
      try {
        outcome = await kernel.channel.execute(
          cell.source,
          deadline,
          () => kernel.interrupt(),
          () => kernel.idle(),
        );
      } catch (err) {
        if (!(err instanceof KernelDiedError)) throw err;
        died = { cell, why: err.why };
        return;
      }
      if (outcome.stuck) kernel.channel.abandon('it did not answer an interrupt');
      // An interrupt nobody here asked for: the server may be shutting the kernel down.
      if (outcome.interruptedElsewhere && (await goneSoon(kernel))) {
        died = { cell, why: kernel.channel.dead ?? 'the Jupyter Server shut it down (it stopped, or the kernel was shut down there)' };
        kernel.channel.abandon(died.why);
        return;
      }
      finished.push({ cell, executionCount: outcome.executionCount, outputs: outcome.outputs });
      runs.push({
        cell_id: cell.cellId,
        execution_count: outcome.executionCount,
        status: outcome.status,
        outputs: outcome.outputs.map(summarizeOutput),
      });
      if (outcome.status !== 'ok') return;
    }
  });
  if (finished.length === 0 && died === null && kernels.stopping) throw shuttingDown();
  const written = finished.length === 0 ? null : await writeOutputs(ctx, target, base, finished, () => runs, seen === null);
  if (died !== null) throw kernelDied(target, died, runs);
  return {
    result: { notebook_path: target.relative, cells: runs },
    text: resultText(target, runs, seen !== null || (written?.merged ?? false)),
    metrics: written ? { bytes: written.bytes, linesAdded: written.additions, linesRemoved: written.deletions } : {},
  };
}

/**
 * After a KeyboardInterrupt nobody here asked for: is the kernel going away (the server stopping
 * or shutting it down interrupts it first)? Watched for a few seconds; a kernel still there was
 * interrupted by someone else (JupyterLab's stop button), and the cell simply failed.
 */
async function goneSoon(kernel: Kernel): Promise<boolean> {
  for (let i = 0; i < 15; i++) {
    if (kernel.channel.dead !== null || !(await kernel.alive())) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}

/**
 * The cells to run. `seen`: the cells of the version the session read, when the notebook changed
 * since — the session's cells are then found in the notebook as it is now (by id, same source),
 * and a cell the other change touched refuses the run (409 with `details.conflict`).
 */
function planRun(
  target: ResolvedPath,
  cells: unknown[],
  seen: unknown[] | null,
  input: NotebookRunInput,
  positions: Parameters<typeof planCells>[2],
): PlannedCell[] {
  if (seen === null) return planCells(cells, input, positions);
  const meant = planCells(seen, input, positions);
  const { indexes, conflict } = matchCells(meant, cells);
  if (conflict.length > 0) {
    throw new ToolError(
      'FILE_MODIFIED_SINCE_READ',
      `${target.relative} has changed since your read (by the user or another tool), and the change touched cell ${conflict.join(', ')} you asked to run. Read the notebook again, then run it.`,
      { conflict },
    );
  }
  return meant.map((cell, i) => ({ ...cell, index: indexes[i] as number }));
}

/**
 * The notebook as the run starts: read-state checks, decoded and parsed (the merge base). A
 * read that is stale but whose version the text cache holds gives `seen`, that version's cells.
 */
async function loadBase(
  ctx: ToolContext,
  target: ResolvedPath,
): Promise<{ base: RunBase; cells: unknown[]; seen: unknown[] | null; kernelName: string | null }> {
  const dir = await openTargetDir(ctx.root, target.real);
  let current;
  try {
    current = await loadCurrent(ctx.root, dir, target.real);
  } finally {
    dir?.close();
  }
  if (current.bytes === null || current.stat === null) {
    throw new ToolError('FILE_NOT_FOUND', `Notebook ${target.relative} does not exist.`);
  }
  const checked = checkReadOrBase(ctx, target, 'any', current.bytes, current.stat, undefined, true);
  const decoded = decodeText(current.bytes, encodingOverrideFor(ctx.settings.encodings, target.relative));
  assertRoundTrips(current.bytes, decoded, target.relative, 'notebook');
  const doc = openNotebook(decoded.text);
  const seen =
    checked !== null && typeof checked === 'object'
      ? seenCells(ctx, target, checked.base, decoded.encoding, current.bytes, current.stat)
      : null;
  const metadata = doc.root['metadata'];
  const spec = isObject(metadata) ? metadata['kernelspec'] : undefined;
  const kernelName = isObject(spec) && typeof spec['name'] === 'string' && spec['name'] !== '' ? spec['name'] : null;
  return { base: { bytes: current.bytes, decoded, cellCount: doc.cells.length }, cells: doc.cells, seen, kernelName };
}

/** The cells of the version the session read; one that no longer parses is the plain stale answer. */
function seenCells(ctx: ToolContext, target: ResolvedPath, base: Buffer, encoding: string, bytes: Buffer, stat: Stats): unknown[] {
  const parsed = parseNotebook(decodeText(base, encoding).text);
  if (parsed.ok) return parsed.notebook.cells;
  checkReadOrBase(ctx, target, 'any', bytes, stat, undefined, false);
  throw new ToolError('FILE_MODIFIED_SINCE_READ', `${target.relative} has changed since your read. Read it again before running it.`);
}

function kernelDied(target: ResolvedPath, died: { cell: PlannedCell; why: string }, runs: CellRun[]): ToolError {
  const kept = runs.length === 0 ? 'No cell finished.' : `The ${runs.length} cell(s) that finished before it are written.`;
  return new ToolError(
    'KERNEL_UNAVAILABLE',
    `The kernel of ${target.relative} died while cell ${died.cell.cellId} ran: ${died.why}. ${kept} ` +
      'The next NotebookRun starts a new kernel: variables from earlier runs are gone, so run the cells they come from again.',
    { cells: runs, cell_id: died.cell.cellId, reason: died.why },
    { 'Retry-After': '1' },
  );
}

function resultText(target: ResolvedPath, runs: CellRun[], merged: boolean): string {
  const summary = runs.map((r) => `${r.cell_id} ${r.status}`).join(', ');
  const head = `Ran ${runs.length} cell(s) of ${target.relative}: ${summary || 'no code cells'}.`;
  const note = merged ? ' The notebook had changed meanwhile in other cells; the outputs were merged into it.' : '';
  const cells = runs.map((r, index) =>
    renderCell({
      cell_id: r.cell_id,
      index,
      cell_type: 'code',
      source: '',
      execution_count: r.execution_count,
      outputs: r.outputs,
    }).replace(/^<cell id="([^"]*)" index="\d+" type="code"/, `<cell id="$1" status="${r.status}"`),
  );
  return [head + note, ...cells].join('\n');
}

export type { JsonObject };
