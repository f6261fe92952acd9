import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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

type RunAnswer = Awaited<ReturnType<RunWorld['run']>>;

/** A file the cell creates as it starts: how a test knows the kernel runs it (the server's execution_state can lag). */
function startMarker(): { path: string; line: string } {
  const file = path.join(os.tmpdir(), `sidefile-cell-started-${process.pid}-${Date.now()}`);
  return { path: file, line: `open(${JSON.stringify(file)}, "w").close()\n` };
}

/**
 * Starts a run and returns it once the kernel runs the cell that creates `marker`. On a loaded
 * machine a kernel may not start within sidefile's start timeout: that run answers 503 before any
 * cell ran, and is started once more (with a notice). Any other early answer fails the test with it.
 */
async function runningCell(world: RunWorld, body: Record<string, unknown>, marker: string): Promise<{ running: Promise<RunAnswer> }> {
  for (let attempt = 1; ; attempt++) {
    let answer: RunAnswer | undefined;
    const running = world.run(body);
    void running.then((res) => (answer = res));
    while (answer === undefined && !existsSync(marker)) await sleep(100);
    // Wrapped: an async function returning the promise itself would wait for the run's answer.
    if (answer === undefined) return { running };
    const error = (answer.body as { error?: { code?: string; details?: { cells?: unknown[] } } }).error;
    const notStarted = answer.status === 503 && error?.code === 'KERNEL_UNAVAILABLE' && !error.details?.cells?.length;
    if (!notStarted || attempt === 2)
      throw new Error(`the run answered before its cell started: ${answer.status} ${JSON.stringify(answer.body)}`);
    console.warn(
      `NotebookRun fault test: the kernel did not start in time on this machine (${JSON.stringify(answer.body)}); starting the run again`,
    );
  }
}

describe.skipIf(!HAS_JUPYTER)('NotebookRun faults on a real Jupyter Server', () => {
  it('answers 503 KERNEL_UNAVAILABLE with the finished cells written when the Jupyter Server stops mid-run', async () => {
    w = await startRunWorld();
    const marker = startMarker();
    await w.put('stop.ipynb', [code('fast', ['print("fast")']), code('slow', ['import time\n', marker.line, 'time.sleep(60)'])]);
    const { running } = await runningCell(w, { notebook_path: 'stop.ipynb', mode: 'all' }, marker.path);
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
    const marker = startMarker();
    await w.put('term.ipynb', [code('t', ['import time\n', 'print("before", flush=True)\n', marker.line, 'time.sleep(60)'])]);
    const { running } = await runningCell(w, { notebook_path: 'term.ipynb', cell_id: 't' }, marker.path);
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
