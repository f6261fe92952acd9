import { execFileSync } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFully, type TestApp } from './helpers.js';
import { appOn, HAS_JUPYTER, JUPYTER_NOTICE, startJupyter, type JupyterServer } from './support/jupyter-server.js';
import { makeTempDirs } from './support/temp-dirs.js';

if (!HAS_JUPYTER) console.warn(JUPYTER_NOTICE);

let t: TestApp;
let jupyter: JupyterServer;

let dirs: { base: string; root: string; dataDir: string };

beforeAll(async () => {
  if (!HAS_JUPYTER) return;
  dirs = await makeTempDirs('sidefile-run-');
  jupyter = await startJupyter(dirs.root, dirs.base);
  t = await appOn(dirs, { jupyter: { url: jupyter.url, token: jupyter.token, maxKernels: 4 } });
}, 90_000);

afterAll(async () => {
  await t?.app.close();
  await jupyter?.stop();
  if (dirs) await fsp.rm(dirs.base, { recursive: true, force: true });
});

/** A notebook as Jupyter writes it: sorted keys, one-space indent, lists of lines, trailing newline. */
export function notebookText(cells: unknown[]): string {
  const nb = {
    cells,
    metadata: { kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' }, language_info: { name: 'python' } },
    nbformat: 4,
    nbformat_minor: 5,
  };
  return JSON.stringify(nb, null, 1) + '\n';
}
export const code = (id: string, source: string[]) => ({ cell_type: 'code', execution_count: null, id, metadata: {}, outputs: [], source });
export const md = (id: string, source: string[]) => ({ cell_type: 'markdown', id, metadata: {}, source });

async function put(rel: string, cells: unknown[], session = 'default'): Promise<string> {
  const text = notebookText(cells);
  await fsp.mkdir(path.dirname(path.join(t.root, rel)), { recursive: true });
  await fsp.writeFile(path.join(t.root, rel), text);
  await readFully(t, rel, session);
  return text;
}

/** Sent at once (a supertest request is only sent when awaited). */
function run(body: Record<string, unknown>, session = 'default'): Promise<supertest.Response> {
  return t.request
    .post('/v1/tools/notebook_run')
    .set('X-Session-Id', session)
    .send(body)
    .then((res) => res);
}

const onDisk = (rel: string) => fsp.readFile(path.join(t.root, rel), 'utf8');

/** nbformat's own validator (Debian's python3-nbformat, the system Python). */
function assertValidNotebook(rel: string): void {
  execFileSync('/usr/bin/python3', ['-c', 'import nbformat,sys; nbformat.validate(nbformat.read(sys.argv[1], 4))', path.join(t.root, rel)]);
}

describe.skipIf(!HAS_JUPYTER)('NotebookRun against a real Jupyter Server', () => {
  it('runs one cell: its outputs and execution count are written, every other byte stays', async () => {
    const before = await put('one.ipynb', [md('intro', ['# Title']), code('a', ['print("hello")\n', '6 * 7']), code('b', ['x = 1'])]);
    const res = await run({ notebook_path: 'one.ipynb', cell_id: 'a' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result).toEqual({
      notebook_path: 'one.ipynb',
      cells: [
        {
          cell_id: 'a',
          execution_count: 1,
          status: 'ok',
          outputs: [
            { output_type: 'stream', text: 'hello\n' },
            { output_type: 'execute_result', text: '42' },
          ],
        },
      ],
    });
    expect(res.body.text).toContain('<cell id="a" status="ok" execution_count="1">');
    expect(res.body.text).toContain('hello');
    const after = await onDisk('one.ipynb');
    const expected = notebookText([
      md('intro', ['# Title']),
      {
        ...code('a', ['print("hello")\n', '6 * 7']),
        execution_count: 1,
        outputs: [
          { name: 'stdout', output_type: 'stream', text: ['hello\n'] },
          { data: { 'text/plain': ['42'] }, execution_count: 1, metadata: {}, output_type: 'execute_result' },
        ],
      },
      code('b', ['x = 1']),
    ]);
    expect(after).toBe(expected);
    expect(before).not.toBe(after);
    assertValidNotebook('one.ipynb');
  }, 60_000);

  it('answers an error with its traceback (no ANSI codes) and stops "all" there; later cells stay as they were', async () => {
    const cells = [code('a', ['y = 2']), code('b', ['def f():\n', '    return 1 / 0\n', 'f()']), code('c', ['print("never")'])];
    await put('err.ipynb', cells);
    const res = await run({ notebook_path: 'err.ipynb', mode: 'all' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [a, b, ...rest] = res.body.result.cells as Array<{ cell_id: string; status: string; outputs: Array<{ text?: string }> }>;
    expect(rest).toEqual([]);
    expect([a?.cell_id, a?.status, b?.cell_id, b?.status]).toEqual(['a', 'ok', 'b', 'error']);
    const text = b?.outputs[0]?.text ?? '';
    expect(text).toContain('ZeroDivisionError: division by zero');
    expect(text).toContain('return 1 / 0');
    expect(text).not.toContain('\u001b[');
    expect(res.body.text).toContain('ZeroDivisionError: division by zero');
    const nb = JSON.parse(await onDisk('err.ipynb')) as { cells: Array<{ execution_count: number | null; outputs: unknown[] }> };
    expect(nb.cells[0]?.execution_count).toBe(1);
    expect(nb.cells[1]?.outputs).toEqual([
      expect.objectContaining({ output_type: 'error', ename: 'ZeroDivisionError', evalue: 'division by zero' }),
    ]);
    expect(nb.cells[2]).toEqual(code('c', ['print("never")']));
    assertValidNotebook('err.ipynb');
  }, 60_000);

  it('keeps state across calls, runs "up_to" over code cells only, and restarts on request', async () => {
    await put('state.ipynb', [code('s1', ['x = 41']), md('m', ['between']), code('s2', ['x + 1']), code('s3', ['x * 2'])]);
    const first = await run({ notebook_path: 'state.ipynb', cell_id: 's1' });
    expect(first.body.result.cells[0]).toMatchObject({ cell_id: 's1', execution_count: 1, status: 'ok', outputs: [] });
    await readFully(t, 'state.ipynb');
    const second = await run({ notebook_path: 'state.ipynb', cell_id: 's2' });
    expect(second.body.result.cells).toEqual([
      { cell_id: 's2', execution_count: 2, status: 'ok', outputs: [{ output_type: 'execute_result', text: '42' }] },
    ]);
    const upTo = await run({ notebook_path: 'state.ipynb', cell_id: 's2', mode: 'up_to' });
    expect(upTo.body.result.cells.map((c: { cell_id: string; execution_count: number }) => [c.cell_id, c.execution_count])).toEqual([
      ['s1', 3],
      ['s2', 4],
    ]);
    const restarted = await run({ notebook_path: 'state.ipynb', cell_id: 's3', restart: true });
    expect(restarted.body.result.cells[0]).toMatchObject({ cell_id: 's3', execution_count: 1, status: 'error' });
    expect(restarted.body.result.cells[0].outputs[0].text).toContain("NameError: name 'x' is not defined");
    assertValidNotebook('state.ipynb');
  }, 60_000);

  it('interrupts the kernel at timeout_ms, keeps the outputs so far, and the kernel goes on', async () => {
    await put('slow.ipynb', [
      code('t', ['import time\n', 'print("started", flush=True)\n', 'time.sleep(60)']),
      code('u', ['v = 7\n', 'v']),
    ]);
    const started = Date.now();
    const res = await run({ notebook_path: 'slow.ipynb', mode: 'all', timeout_ms: 3000 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(res.body.result.cells).toHaveLength(1);
    expect(res.body.result.cells[0]).toMatchObject({ cell_id: 't', status: 'timeout' });
    expect(res.body.result.cells[0].outputs[0]).toEqual({ output_type: 'stream', text: 'started\n' });
    const nb = JSON.parse(await onDisk('slow.ipynb')) as { cells: Array<{ outputs: Array<{ text?: string[] }> }> };
    expect(nb.cells[0]?.outputs[0]?.text).toEqual(['started\n']);
    const next = await run({ notebook_path: 'slow.ipynb', cell_id: 'u' });
    expect(next.body.result.cells[0]).toMatchObject({ status: 'ok', outputs: [{ output_type: 'execute_result', text: '7' }] });
    assertValidNotebook('slow.ipynb');
  }, 60_000);

  it('shows an image output as a placeholder and writes its data into the file', async () => {
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    await put('img.ipynb', [code('i', [`display({'image/png': '${png}', 'text/plain': '<Figure>'}, raw=True)`])]);
    const res = await run({ notebook_path: 'img.ipynb', cell_id: 'i' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result.cells[0].outputs).toEqual([
      { output_type: 'display_data', text: '<Figure>', media_type: 'image/png', size: 70 },
    ]);
    expect(res.body.text).toContain('[image/png output, 70 bytes, not shown]');
    expect(res.body.text).not.toContain(png);
    const nb = JSON.parse(await onDisk('img.ipynb')) as { cells: Array<{ outputs: Array<{ data: Record<string, unknown> }> }> };
    expect(nb.cells[0]?.outputs[0]?.data['image/png']).toEqual([png]);
    assertValidNotebook('img.ipynb');
  }, 60_000);

  it("runs two notebooks at once, each kernel in its notebook's folder", async () => {
    await put('one/n.ipynb', [code('w', ['import os, time\n', 'time.sleep(1)\n', 'print(os.getcwd())'])]);
    await put('two/n.ipynb', [code('w', ['import os, time\n', 'time.sleep(1)\n', 'print(os.getcwd())'])], 'other');
    const [one, two] = await Promise.all([
      run({ notebook_path: 'one/n.ipynb', cell_id: 'w' }),
      run({ notebook_path: 'two/n.ipynb', cell_id: 'w' }, 'other'),
    ]);
    expect(one.body.result.cells[0].outputs[0].text).toBe(`${path.join(t.root, 'one')}\n`);
    expect(two.body.result.cells[0].outputs[0].text).toBe(`${path.join(t.root, 'two')}\n`);
    assertValidNotebook('one/n.ipynb');
    assertValidNotebook('two/n.ipynb');
  }, 60_000);

  it('queues two runs of one notebook in the order they came', async () => {
    await put('queue.ipynb', [code('q1', ['import time\n', 'time.sleep(1)\n', 'order = [1]']), code('q2', ['order.append(2)\n', 'order'])]);
    const first = run({ notebook_path: 'queue.ipynb', cell_id: 'q1' });
    await new Promise((r) => setTimeout(r, 50));
    const second = run({ notebook_path: 'queue.ipynb', cell_id: 'q2' });
    const [a, b] = await Promise.all([first, second]);
    expect(a.status).toBe(200);
    expect(b.status, JSON.stringify(b.body)).toBe(200);
    expect(b.body.result.cells[0].outputs).toEqual([{ output_type: 'execute_result', text: '[1, 2]' }]);
    const nb = JSON.parse(await onDisk('queue.ipynb')) as { cells: Array<{ execution_count: number }> };
    expect(nb.cells.map((c) => c.execution_count)).toEqual([1, 2]);
  }, 60_000);

  it('answers 503 KERNEL_UNAVAILABLE with the results so far when the kernel is killed mid-run; the next call starts a new kernel', async () => {
    await put('kill.ipynb', [code('pid', ['import os\n', 'os.getpid()']), code('sleep', ['import time\n', 'time.sleep(60)'])]);
    const pid = await run({ notebook_path: 'kill.ipynb', cell_id: 'pid' });
    const kernelPid = Number(pid.body.result.cells[0].outputs[0].text);
    expect(kernelPid).toBeGreaterThan(1);
    await readFully(t, 'kill.ipynb');
    const running = run({ notebook_path: 'kill.ipynb', mode: 'all' });
    await new Promise((r) => setTimeout(r, 1500));
    process.kill(kernelPid, 'SIGKILL');
    const res = await running;
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(res.body.error.code).toBe('KERNEL_UNAVAILABLE');
    expect(res.body.error.message).toContain('died while cell sleep ran');
    expect(res.body.error.details.cells).toEqual([
      { cell_id: 'pid', execution_count: 2, status: 'ok', outputs: [expect.objectContaining({ output_type: 'execute_result' })] },
    ]);
    const nb = JSON.parse(await onDisk('kill.ipynb')) as { cells: Array<{ execution_count: number | null }> };
    expect(nb.cells.map((c) => c.execution_count)).toEqual([2, null]);
    assertValidNotebook('kill.ipynb');
    await readFully(t, 'kill.ipynb');
    const again = await run({ notebook_path: 'kill.ipynb', cell_id: 'pid' });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.result.cells[0].execution_count).toBe(1);
    expect(Number(again.body.result.cells[0].outputs[0].text)).not.toBe(kernelPid);
  }, 90_000);

  it('merges the outputs into a notebook another session changed in other cells; a changed run cell is 409 with the outputs', async () => {
    const cells = [code('r', ['import time\n', 'time.sleep(1.5)\n', '"done"']), code('o', ['other = 1'])];
    await put('merge.ipynb', cells);
    await readFully(t, 'merge.ipynb', 'editor');
    const running = run({ notebook_path: 'merge.ipynb', cell_id: 'r' });
    await new Promise((r) => setTimeout(r, 300));
    const edit = await t.request
      .post('/v1/tools/notebook_edit')
      .set('X-Session-Id', 'editor')
      .send({ notebook_path: 'merge.ipynb', cell_id: 'o', new_source: 'other = 2' });
    expect(edit.status).toBe(200);
    const res = await running;
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const nb = JSON.parse(await onDisk('merge.ipynb')) as { cells: Array<{ source: string[]; outputs: unknown[] }> };
    expect(nb.cells[1]?.source).toEqual(['other = 2']);
    expect(nb.cells[0]?.outputs).toHaveLength(1);

    await readFully(t, 'merge.ipynb');
    await readFully(t, 'merge.ipynb', 'editor');
    const again = run({ notebook_path: 'merge.ipynb', cell_id: 'r' });
    await new Promise((r) => setTimeout(r, 300));
    await t.request
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
    const after = JSON.parse(await onDisk('merge.ipynb')) as { cells: Array<{ source: string[]; outputs: unknown[] }> };
    expect(after.cells[0]).toMatchObject({ source: ['"changed"'], outputs: [] });
  }, 60_000);

  it('names a kernelspec the server does not have, and the ones it has', async () => {
    const text = notebookText([code('k', ['1'])]).replace('"name": "python3"', '"name": "julia-1.9"');
    await fsp.writeFile(path.join(t.root, 'julia.ipynb'), text);
    await readFully(t, 'julia.ipynb');
    const res = await run({ notebook_path: 'julia.ipynb', cell_id: 'k' });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('KERNEL_UNAVAILABLE');
    expect(res.body.error.message).toContain('"julia-1.9"');
    expect(res.body.error.message).toContain('"python3"');
    expect(res.body.error.details).toEqual({ kernel: 'julia-1.9', available: expect.arrayContaining(['python3']) });
  });

  it('refuses bad input before any kernel starts', async () => {
    await put('bad.ipynb', [md('m', ['# Notes']), code('c', ['1'])]);
    const markdown = await run({ notebook_path: 'bad.ipynb', cell_id: 'm' });
    expect([markdown.status, markdown.body.error.code]).toEqual([400, 'INVALID_INPUT']);
    expect(markdown.body.error.message).toContain('Cell m is a markdown cell');
    const missing = await run({ notebook_path: 'bad.ipynb', cell_id: 'nope' });
    expect([missing.status, missing.body.error.code]).toEqual([404, 'CELL_NOT_FOUND']);
    const long = await run({ notebook_path: 'bad.ipynb', cell_id: 'c', timeout_ms: 600_001 });
    expect([long.status, long.body.error.code]).toEqual([400, 'INVALID_INPUT']);
    expect(JSON.stringify(long.body.error.details)).toContain('timeout_ms');
    const noCell = await run({ notebook_path: 'bad.ipynb' });
    expect([noCell.status, noCell.body.error.code]).toEqual([400, 'INVALID_INPUT']);
    const allWithCell = await run({ notebook_path: 'bad.ipynb', mode: 'all', cell_id: 'c' });
    expect([allWithCell.status, allWithCell.body.error.code]).toEqual([400, 'INVALID_INPUT']);
    await fsp.writeFile(path.join(t.root, 'script.py'), 'print(1)\n');
    const wrong = await run({ notebook_path: 'script.py', cell_id: 'c' });
    expect([wrong.status, wrong.body.error.code]).toEqual([400, 'WRONG_TOOL']);
    const unread = await run({ notebook_path: 'bad.ipynb', cell_id: 'c' }, 'stranger');
    expect([unread.status, unread.body.error.code]).toEqual([409, 'FILE_NOT_READ']);
  });

  it('is listed in GET /v1/tools and MCP (destructive, open world) when a Jupyter Server is configured', async () => {
    const list = await t.request.get('/v1/tools');
    expect(list.body.tools.map((tool: { name: string }) => tool.name)).toContain('NotebookRun');
    const mcp = await t.request.get('/v1/tools?dialect=mcp');
    const tool = mcp.body.tools.find((x: { name: string }) => x.name === 'NotebookRun');
    expect(tool.annotations).toMatchObject({ destructiveHint: true, openWorldHint: true, readOnlyHint: false });
  });

  it('records the run in history and events as NotebookRun', async () => {
    await put('hist.ipynb', [code('h', ['3'])]);
    const res = await run({ notebook_path: 'hist.ipynb', cell_id: 'h' });
    expect(res.status).toBe(200);
    const history = await t.request.get('/v1/history').query({ file_path: 'hist.ipynb' });
    expect(history.body.versions[0]).toMatchObject({ tool: 'NotebookRun', session: 'default' });
  });
});
