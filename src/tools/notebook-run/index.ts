import { JupyterClient } from '../../jupyter/jupyter-client.js';
import { KernelPool } from '../../jupyter/kernel-pool.js';
import type { JupyterSettings } from '../../config/jupyter-setting.js';
import type { ToolDefinition } from '../types.js';
import { runNotebookRun } from './run.js';
import { notebookRunInput, notebookRunResult, type NotebookRunInput, type NotebookRunResult } from './schema.js';

/**
 * NotebookRun, with the kernels it holds (created on first use: nothing is started or
 * connected until a cell runs). Listed (GET /v1/tools, dialects, MCP) only when a Jupyter
 * Server is configured; its REST route always exists.
 */
export function createNotebookRunTool(jupyter: JupyterSettings | null): ToolDefinition<NotebookRunInput, NotebookRunResult> {
  let pool: KernelPool | null = null;
  const kernels = (): KernelPool | null => {
    if (jupyter === null) return null;
    pool ??= new KernelPool(new JupyterClient(jupyter.url, jupyter.token), jupyter.maxKernels);
    return pool;
  };
  return {
    name: 'NotebookRun',
    slug: 'notebook_run',
    title: 'Run notebook cells',
    description: [
      "Runs code cells of a Jupyter notebook (.ipynb) in the notebook's kernel and writes their outputs into the notebook.",
      '- Read the notebook first in this session (any range); if it changed on disk since, read it again.',
      '- mode "cell" (default) runs cell_id; "up_to" runs every code cell up to and including cell_id; "all" runs every code cell.',
      '- The kernel is kept between calls, so variables carry over as in JupyterLab; restart: true starts it afresh.',
      '- A cell that raises stops the run there (status "error", with the traceback). Past timeout_ms (default 60000) the kernel is interrupted (status "timeout").',
      "- Only the run cells' outputs and execution counts change in the file; to change code, use NotebookEdit first.",
    ].join('\n'),
    input: notebookRunInput,
    result: notebookRunResult,
    access: 'write',
    target: { field: 'notebook_path', kind: 'file' },
    listed: jupyter !== null,
    run: (input, ctx, target) => runNotebookRun(input, ctx, target!, kernels),
    shutdown: async () => {
      await pool?.interruptAll();
    },
    close: async () => {
      await pool?.close();
    },
  };
}
