import { afterEach, describe, expect, it } from 'vitest';
import { HAS_JUPYTER, JUPYTER_NOTICE } from '../support/jupyter-server.js';
import { code, startRunWorld, type RunWorld } from '../support/notebook-run.js';

/** NotebookRun when things break: the Jupyter Server stops mid-run, sidefile stops mid-run, a cell prints a gigabyte. */
if (!HAS_JUPYTER) console.warn(JUPYTER_NOTICE);

let w: RunWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Waits until the Jupyter Server has a kernel running a cell (however slow kernels start here):
 * busy on three polls in a row, so the moment it answers sidefile's kernel_info_request does not count.
 */
async function busyKernel(world: RunWorld): Promise<void> {
  let busyPolls = 0;
  for (let i = 0; i < 1500; i++) {
    const res = await fetch(`${world.jupyter.url}/api/kernels`, { headers: { Authorization: `token ${world.jupyter.token}` } });
    const kernels = (await res.json()) as Array<{ execution_state: string }>;
    busyPolls = kernels.some((k) => k.execution_state === 'busy') ? busyPolls + 1 : 0;
    if (busyPolls === 3) return;
    await sleep(100);
  }
  throw new Error('no kernel became busy');
}

describe.skipIf(!HAS_JUPYTER)('NotebookRun faults on a real Jupyter Server', () => {
  it('answers 503 KERNEL_UNAVAILABLE with the finished cells written when the Jupyter Server stops mid-run', async () => {
    w = await startRunWorld();
    await w.put('stop.ipynb', [code('fast', ['print("fast")']), code('slow', ['import time\n', 'time.sleep(60)'])]);
    const running = w.run({ notebook_path: 'stop.ipynb', mode: 'all' });
    await busyKernel(w);
    await sleep(1500);
    await w.jupyter.stop();
    const res = await running;
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(res.body.error.code).toBe('KERNEL_UNAVAILABLE');
    expect(res.body.error.message).toContain('died while cell slow ran');
    expect(res.body.error.details.cells).toEqual([
      { cell_id: 'fast', execution_count: 1, status: 'ok', outputs: [{ output_type: 'stream', text: 'fast\n' }] },
    ]);
    const nb = JSON.parse(await w.onDisk('stop.ipynb')) as { cells: Array<{ outputs: unknown[] }> };
    expect(nb.cells[0]?.outputs).toEqual([{ name: 'stdout', output_type: 'stream', text: ['fast\n'] }]);
    w.assertValid('stop.ipynb');
    const { readFully } = await import('../helpers.js');
    await readFully(w.t, 'stop.ipynb');
    const again = await w.run({ notebook_path: 'stop.ipynb', cell_id: 'fast' });
    expect([again.status, again.body.error.code]).toEqual([503, 'KERNEL_UNAVAILABLE']);
    expect(again.body.error.message).toContain('cannot be reached');
  }, 240_000);

  it('interrupts running cells when sidefile shuts down and writes their outputs so far', async () => {
    w = await startRunWorld();
    await w.put('term.ipynb', [code('t', ['import time\n', 'print("before", flush=True)\n', 'time.sleep(60)'])]);
    const running = w.run({ notebook_path: 'term.ipynb', cell_id: 't' });
    await busyKernel(w);
    await sleep(1000);
    const started = Date.now();
    const closing = w.t.app.close();
    const res = await running;
    await closing;
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result.cells[0]).toMatchObject({ cell_id: 't', status: 'timeout' });
    const nb = JSON.parse(await w.onDisk('term.ipynb')) as { cells: Array<{ outputs: Array<{ text?: string[] }> }> };
    expect(nb.cells[0]?.outputs[0]?.text).toEqual(['before\n']);
    w.assertValid('term.ipynb');
  }, 240_000);

  it('keeps at most 1 MiB of a cell that prints a gigabyte, with a note, and memory stays bounded', async () => {
    // The server's own output rate limit (1 MB/s by default) would drop most of it before sidefile sees it.
    w = await startRunWorld(4, ['--ServerApp.iopub_data_rate_limit=1e12', '--ServerApp.iopub_msg_rate_limit=1e9']);
    await w.put('big.ipynb', [
      code('g', ['import sys\n', "chunk = 'x' * (1 << 20)\n", 'for _ in range(1024):\n', '    sys.stdout.write(chunk)\n', 'print("end")']),
    ]);
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
    const res = await w.run({ notebook_path: 'big.ipynb', cell_id: 'g', timeout_ms: 300_000 });
    clearInterval(sampler);
    expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
    expect(res.body.result.cells[0].status).toBe('ok');
    const file = await w.onDisk('big.ipynb');
    expect(file.length).toBeLessThan(1.2 * 1024 * 1024);
    expect(file).toMatch(/output truncated: |not kept/);
    expect(peak - before).toBeLessThan(400 * 1024 * 1024);
    w.assertValid('big.ipynb');
  }, 600_000);
});
