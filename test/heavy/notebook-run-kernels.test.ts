import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFully } from '../helpers.js';
import { HAS_JUPYTER, JUPYTER_NOTICE } from '../support/jupyter-server.js';
import { code, startRunWorld, type RunWorld } from '../support/notebook-run.js';

/** NotebookRun's slower cases on a real kernel: timeouts, concurrency, killed kernels, merges. */
if (!HAS_JUPYTER) console.warn(JUPYTER_NOTICE);

let w: RunWorld;
beforeAll(async () => {
  if (HAS_JUPYTER) w = await startRunWorld();
}, 90_000);
afterAll(async () => {
  await w?.close();
});

describe.skipIf(!HAS_JUPYTER)('NotebookRun on a real kernel: timeouts, concurrency and faults', () => {
  it('interrupts the kernel at timeout_ms, keeps the outputs so far, and the kernel goes on', async () => {
    await w.put('slow.ipynb', [
      code('t', ['import time\n', 'print("started", flush=True)\n', 'time.sleep(60)']),
      code('u', ['v = 7\n', 'v']),
    ]);
    const started = Date.now();
    const res = await w.run({ notebook_path: 'slow.ipynb', mode: 'all', timeout_ms: 3000 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(res.body.result.cells).toHaveLength(1);
    expect(res.body.result.cells[0]).toMatchObject({ cell_id: 't', status: 'timeout' });
    expect(res.body.result.cells[0].outputs[0]).toEqual({ output_type: 'stream', text: 'started\n' });
    const nb = JSON.parse(await w.onDisk('slow.ipynb')) as { cells: Array<{ outputs: Array<{ text?: string[] }> }> };
    expect(nb.cells[0]?.outputs[0]?.text).toEqual(['started\n']);
    const next = await w.run({ notebook_path: 'slow.ipynb', cell_id: 'u' });
    expect(next.body.result.cells[0]).toMatchObject({ status: 'ok', outputs: [{ output_type: 'execute_result', text: '7' }] });
    w.assertValid('slow.ipynb');
  }, 60_000);

  it("runs two notebooks at once, each kernel in its notebook's folder", async () => {
    await w.put('one/n.ipynb', [code('w', ['import os, time\n', 'time.sleep(1)\n', 'print(os.getcwd())'])]);
    await w.put('two/n.ipynb', [code('w', ['import os, time\n', 'time.sleep(1)\n', 'print(os.getcwd())'])], 'other');
    const [one, two] = await Promise.all([
      w.run({ notebook_path: 'one/n.ipynb', cell_id: 'w' }),
      w.run({ notebook_path: 'two/n.ipynb', cell_id: 'w' }, 'other'),
    ]);
    expect(one.body.result.cells[0].outputs[0].text).toBe(`${path.join(w.t.root, 'one')}\n`);
    expect(two.body.result.cells[0].outputs[0].text).toBe(`${path.join(w.t.root, 'two')}\n`);
    w.assertValid('one/n.ipynb');
    w.assertValid('two/n.ipynb');
  }, 60_000);

  it('queues two runs of one notebook in the order they came', async () => {
    await w.put('queue.ipynb', [
      code('q1', ['import time\n', 'time.sleep(1)\n', 'order = [1]']),
      code('q2', ['order.append(2)\n', 'order']),
    ]);
    const first = w.run({ notebook_path: 'queue.ipynb', cell_id: 'q1' });
    await new Promise((r) => setTimeout(r, 50));
    const second = w.run({ notebook_path: 'queue.ipynb', cell_id: 'q2' });
    const [a, b] = await Promise.all([first, second]);
    expect(a.status).toBe(200);
    expect(b.status, JSON.stringify(b.body)).toBe(200);
    expect(b.body.result.cells[0].outputs).toEqual([{ output_type: 'execute_result', text: '[1, 2]' }]);
    const nb = JSON.parse(await w.onDisk('queue.ipynb')) as { cells: Array<{ execution_count: number }> };
    expect(nb.cells.map((c) => c.execution_count)).toEqual([1, 2]);
  }, 60_000);

  it('answers 503 KERNEL_UNAVAILABLE with the results so far when the kernel is killed mid-run; the next call starts a new kernel', async () => {
    await w.put('kill.ipynb', [code('pid', ['import os\n', 'os.getpid()']), code('sleep', ['import time\n', 'time.sleep(60)'])]);
    const pid = await w.run({ notebook_path: 'kill.ipynb', cell_id: 'pid' });
    const kernelPid = Number(pid.body.result.cells[0].outputs[0].text);
    expect(kernelPid).toBeGreaterThan(1);
    await readFully(w.t, 'kill.ipynb');
    const running = w.run({ notebook_path: 'kill.ipynb', mode: 'all' });
    await new Promise((r) => setTimeout(r, 1500));
    process.kill(kernelPid, 'SIGKILL');
    const res = await running;
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(res.body.error.code).toBe('KERNEL_UNAVAILABLE');
    expect(res.body.error.message).toContain('died while cell sleep ran');
    expect(res.body.error.details.cells).toEqual([
      { cell_id: 'pid', execution_count: 2, status: 'ok', outputs: [expect.objectContaining({ output_type: 'execute_result' })] },
    ]);
    const nb = JSON.parse(await w.onDisk('kill.ipynb')) as { cells: Array<{ execution_count: number | null }> };
    expect(nb.cells.map((c) => c.execution_count)).toEqual([2, null]);
    w.assertValid('kill.ipynb');
    await readFully(w.t, 'kill.ipynb');
    const again = await w.run({ notebook_path: 'kill.ipynb', cell_id: 'pid' });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.result.cells[0].execution_count).toBe(1);
    expect(Number(again.body.result.cells[0].outputs[0].text)).not.toBe(kernelPid);
  }, 90_000);

  it('merges the outputs into a notebook another session changed in other cells; a changed run cell is 409 with the outputs', async () => {
    const cells = [code('r', ['import time\n', 'time.sleep(1.5)\n', '"done"']), code('o', ['other = 1'])];
    await w.put('merge.ipynb', cells);
    await readFully(w.t, 'merge.ipynb', 'editor');
    const running = w.run({ notebook_path: 'merge.ipynb', cell_id: 'r' });
    await new Promise((r) => setTimeout(r, 300));
    const edit = await w.t.request
      .post('/v1/tools/notebook_edit')
      .set('X-Session-Id', 'editor')
      .send({ notebook_path: 'merge.ipynb', cell_id: 'o', new_source: 'other = 2' });
    expect(edit.status).toBe(200);
    const res = await running;
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const nb = JSON.parse(await w.onDisk('merge.ipynb')) as { cells: Array<{ source: string[]; outputs: unknown[] }> };
    expect(nb.cells[1]?.source).toEqual(['other = 2']);
    expect(nb.cells[0]?.outputs).toHaveLength(1);

    await readFully(w.t, 'merge.ipynb');
    await readFully(w.t, 'merge.ipynb', 'editor');
    const again = w.run({ notebook_path: 'merge.ipynb', cell_id: 'r' });
    await new Promise((r) => setTimeout(r, 300));
    await w.t.request
      .post('/v1/tools/notebook_edit')
      .set('X-Session-Id', 'editor')
      .send({ notebook_path: 'merge.ipynb', cell_id: 'r', new_source: '"changed"' });
    const conflict = await again;
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe('FILE_MODIFIED_SINCE_READ');
    expect(conflict.body.error.details.conflict).toEqual(['r']);
    expect(conflict.body.error.details.cells[0]).toMatchObject({
      cell_id: 'r',
      status: 'ok',
      outputs: [{ output_type: 'execute_result', text: "'done'" }],
    });
    const after = JSON.parse(await w.onDisk('merge.ipynb')) as { cells: Array<{ source: string[]; outputs: unknown[] }> };
    expect(after.cells[0]).toMatchObject({ source: ['"changed"'], outputs: [] });
  }, 60_000);
});
