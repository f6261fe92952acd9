/**
 * `npm run bench -- run`: a trivial cell (`1+1`) run through sidefile's NotebookRun
 * (`POST /v1/tools/notebook_run`, after a Read in the same session) beside the same
 * execute_request sent straight to a kernel's channels WebSocket, on one real Jupyter Server
 * (Debian's `jupyter-server` and `python3-ipykernel`) started for the run. The two are measured
 * alternately, one call at a time, so both see the same machine; the figures are median and p90
 * round trips, their ratio and the milliseconds sidefile adds (target: ≤ 20 ms at the median).
 * sidefile's side includes what the tool does besides the kernel: checks, the notebook's write
 * of the outputs, history. `--quick`: 30 runs instead of 200.
 */
import { mkdtempSync, promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SETTINGS } from '../src/config/settings.js';
import { httpClient, jsonOf, type HttpClient } from './support/http-client.js';
import { startJupyterServer } from './support/jupyter-server.js';
import { KernelChannel } from './support/kernel-channel.js';
import { quantile } from './support/measure.js';
import { startSidefile, type ServerChild } from './support/sidefile-server.js';

type Print = (line: string) => void;

const NOTEBOOK = 'bench-run.ipynb';
const CELL_ID = 'one-plus-one';
const SESSION = { 'x-session-id': 'bench-run' };

/** One code cell, `1+1`, with the python3 kernelspec: what Jupyter itself would save. */
function notebookText(): string {
  const nb = {
    cells: [{ cell_type: 'code', execution_count: null, id: CELL_ID, metadata: {}, outputs: [], source: ['1+1'] }],
    metadata: {
      kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' },
      language_info: { name: 'python' },
    },
    nbformat: 4,
    nbformat_minor: 5,
  };
  return JSON.stringify(nb, null, 1) + '\n';
}

async function direct(kernel: KernelChannel): Promise<void> {
  const { status, outputs } = await kernel.execute('1+1');
  const result = outputs.find((o) => o.output_type === 'execute_result') as { data?: Record<string, string> } | undefined;
  if (status !== 'ok' || result?.data?.['text/plain'] !== '2') throw new Error(`kernel: ${status}, ${JSON.stringify(outputs)}`);
}

/** sidefile's NotebookRun as a call, or why it cannot be measured in this build. */
async function sidefileRun(client: HttpClient): Promise<(() => Promise<void>) | string> {
  const read = await client.request('POST', '/v1/tools/read', { file_path: NOTEBOOK }, SESSION);
  if (read.status !== 200) return `Read answered HTTP ${read.status}: ${read.body.slice(0, 200)}`;
  const call = async () => {
    const res = await client.request('POST', '/v1/tools/notebook_run', { notebook_path: NOTEBOOK, cell_id: CELL_ID }, SESSION);
    if (res.status !== 200) throw new Error(`NotebookRun: HTTP ${res.status}: ${res.body.slice(0, 300)}`);
    const cell = jsonOf<{ result: { cells: Array<{ status: string; outputs: unknown }> } }>(res).result.cells[0];
    if (cell?.status !== 'ok' || !JSON.stringify(cell.outputs).includes('2')) throw new Error(`NotebookRun: ${JSON.stringify(cell)}`);
  };
  const probe = await client.request('POST', '/v1/tools/notebook_run', { notebook_path: NOTEBOOK, cell_id: CELL_ID }, SESSION);
  if (probe.status === 404 || probe.status === 501) return `the route answered HTTP ${probe.status}`;
  if (probe.status !== 200) return `the first run answered HTTP ${probe.status}: ${probe.body.slice(0, 300)}`;
  return call;
}

const ms = (v: number) => v.toFixed(2);

export async function benchNotebookRun(print: Print, opts: { quick?: boolean } = {}): Promise<void> {
  const runs = opts.quick ? 30 : 200;
  const warmup = opts.quick ? 5 : 20;
  const base = mkdtempSync(path.join(os.tmpdir(), 'sidefile-bench-run-'));
  const root = path.join(base, 'ws');
  await fsp.mkdir(root, { recursive: true });
  await fsp.writeFile(path.join(root, NOTEBOOK), notebookText());
  let side: ServerChild | undefined;
  let client: HttpClient | undefined;
  let kernel: KernelChannel | undefined;
  const server = await startJupyterServer(root, path.join(base, 'jupyter'), path.join(base, 'jupyter.log'));
  if (typeof server === 'string') {
    print(`skipped: ${server}`);
    await fsp.rm(base, { recursive: true, force: true });
    return;
  }
  try {
    kernel = await KernelChannel.start(server);
    let viaSidefile: (() => Promise<void>) | string = 'this build has no --jupyter-url setting';
    if ('jupyter-url' in SETTINGS) {
      side = await startSidefile({
        root,
        dataDir: path.join(base, 'data'),
        logFile: path.join(base, 'sidefile.log'),
        extraArgs: ['--jupyter-url', server.url, '--jupyter-token-file', server.tokenFile],
      });
      client = httpClient(side.port, {}, 1);
      viaSidefile = await sidefileRun(client);
    }
    if (typeof viaSidefile === 'string') print(`NotebookRun not available (${viaSidefile}): measuring the kernel alone`);
    const sideCall = typeof viaSidefile === 'string' ? null : viaSidefile;

    for (let i = 0; i < warmup; i++) {
      await direct(kernel);
      await sideCall?.();
    }
    const times: { direct: number[]; sidefile: number[] } = { direct: [], sidefile: [] };
    for (let i = 0; i < runs; i++) {
      let start = performance.now();
      await direct(kernel);
      times.direct.push(performance.now() - start);
      if (sideCall) {
        start = performance.now();
        await sideCall();
        times.sidefile.push(performance.now() - start);
      }
    }
    const stats = (xs: number[]) => {
      const sorted = [...xs].sort((a, b) => a - b);
      return { p50: quantile(sorted, 0.5), p90: quantile(sorted, 0.9) };
    };
    const d = stats(times.direct);
    print(`\`1+1\` round trip, ${runs} runs each after ${warmup} warm-up, alternating, one at a time (Jupyter Server ${server.url}):`);
    print('| path | p50 ms | p90 ms |');
    print('|---|---|---|');
    print(`| kernel channel WebSocket, direct | ${ms(d.p50)} | ${ms(d.p90)} |`);
    if (sideCall) {
      const s = stats(times.sidefile);
      print(`| sidefile POST /v1/tools/notebook_run | ${ms(s.p50)} | ${ms(s.p90)} |`);
      const added = s.p50 - d.p50;
      print(
        `sidefile ÷ direct: ${(s.p50 / d.p50).toFixed(2)}× at p50, ${(s.p90 / d.p90).toFixed(2)}× at p90; ` +
          `added: ${ms(added)} ms at p50 (target ≤ 20 ms: ${added <= 20 ? 'met' : 'missed'}), ${ms(s.p90 - d.p90)} ms at p90`,
      );
    }
  } finally {
    client?.close();
    await kernel?.close();
    await side?.stop();
    await server.stop();
    await fsp.rm(base, { recursive: true, force: true });
  }
}
