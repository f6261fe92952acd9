import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFully } from './helpers.js';
import { HAS_JUPYTER, JUPYTER_NOTICE } from './support/jupyter-server.js';
import { code, md, notebookText, startRunWorld, type RunWorld } from './support/notebook-run.js';

/** NotebookRun against a real Jupyter Server and ipykernel, started here (one server for the file). */
if (!HAS_JUPYTER) console.warn(JUPYTER_NOTICE);

let w: RunWorld;
beforeAll(async () => {
  if (HAS_JUPYTER) w = await startRunWorld();
}, 90_000);
afterAll(async () => {
  await w?.close();
});

describe.skipIf(!HAS_JUPYTER)('NotebookRun against a real Jupyter Server', () => {
  it('runs one cell: its outputs and execution count are written, every other byte stays', async () => {
    const before = await w.put('one.ipynb', [md('intro', ['# Title']), code('a', ['print("hello")\n', '6 * 7']), code('b', ['x = 1'])]);
    const res = await w.run({ notebook_path: 'one.ipynb', cell_id: 'a' });
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
    const after = await w.onDisk('one.ipynb');
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
    w.assertValid('one.ipynb');
  }, 60_000);

  it('answers an error with its traceback (no ANSI codes) and stops "all" there; later cells stay as they were', async () => {
    const cells = [code('a', ['y = 2']), code('b', ['def f():\n', '    return 1 / 0\n', 'f()']), code('c', ['print("never")'])];
    await w.put('err.ipynb', cells);
    const res = await w.run({ notebook_path: 'err.ipynb', mode: 'all' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [a, b, ...rest] = res.body.result.cells as Array<{ cell_id: string; status: string; outputs: Array<{ text?: string }> }>;
    expect(rest).toEqual([]);
    expect([a?.cell_id, a?.status, b?.cell_id, b?.status]).toEqual(['a', 'ok', 'b', 'error']);
    const text = b?.outputs[0]?.text ?? '';
    expect(text).toContain('ZeroDivisionError: division by zero');
    expect(text).toContain('return 1 / 0');
    expect(text).not.toContain('\u001b[');
    expect(res.body.text).toContain('ZeroDivisionError: division by zero');
    const nb = JSON.parse(await w.onDisk('err.ipynb')) as { cells: Array<{ execution_count: number | null; outputs: unknown[] }> };
    expect(nb.cells[0]?.execution_count).toBe(1);
    expect(nb.cells[1]?.outputs).toEqual([
      expect.objectContaining({ output_type: 'error', ename: 'ZeroDivisionError', evalue: 'division by zero' }),
    ]);
    expect(nb.cells[2]).toEqual(code('c', ['print("never")']));
    w.assertValid('err.ipynb');
  }, 60_000);

  it('keeps state across calls, runs "up_to" over code cells only, and restarts on request', async () => {
    await w.put('state.ipynb', [code('s1', ['x = 41']), md('m', ['between']), code('s2', ['x + 1']), code('s3', ['x * 2'])]);
    const first = await w.run({ notebook_path: 'state.ipynb', cell_id: 's1' });
    expect(first.body.result.cells[0]).toMatchObject({ cell_id: 's1', execution_count: 1, status: 'ok', outputs: [] });
    await readFully(w.t, 'state.ipynb');
    const second = await w.run({ notebook_path: 'state.ipynb', cell_id: 's2' });
    expect(second.body.result.cells).toEqual([
      { cell_id: 's2', execution_count: 2, status: 'ok', outputs: [{ output_type: 'execute_result', text: '42' }] },
    ]);
    const upTo = await w.run({ notebook_path: 'state.ipynb', cell_id: 's2', mode: 'up_to' });
    expect(upTo.body.result.cells.map((c: { cell_id: string; execution_count: number }) => [c.cell_id, c.execution_count])).toEqual([
      ['s1', 3],
      ['s2', 4],
    ]);
    const restarted = await w.run({ notebook_path: 'state.ipynb', cell_id: 's3', restart: true });
    expect(restarted.body.result.cells[0]).toMatchObject({ cell_id: 's3', execution_count: 1, status: 'error' });
    expect(restarted.body.result.cells[0].outputs[0].text).toContain("NameError: name 'x' is not defined");
    w.assertValid('state.ipynb');
  }, 60_000);

  it('shows an image output as a placeholder and writes its data into the file', async () => {
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
    await w.put('img.ipynb', [code('i', [`display({'image/png': '${png}', 'text/plain': '<Figure>'}, raw=True)`])]);
    const res = await w.run({ notebook_path: 'img.ipynb', cell_id: 'i' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result.cells[0].outputs).toEqual([
      { output_type: 'display_data', text: '<Figure>', media_type: 'image/png', size: 70 },
    ]);
    expect(res.body.text).toContain('[image/png output, 70 bytes, not shown]');
    expect(res.body.text).not.toContain(png);
    const nb = JSON.parse(await w.onDisk('img.ipynb')) as { cells: Array<{ outputs: Array<{ data: Record<string, unknown> }> }> };
    expect(nb.cells[0]?.outputs[0]?.data['image/png']).toEqual([png]);
    w.assertValid('img.ipynb');
  }, 60_000);

  it('runs from a read made before another change when that change left the cells alone; refuses when it touched them', async () => {
    await w.put('stale.ipynb', [code('a', ['7 * 6']), code('b', ['1 + 1'])]);
    // Another writer changes cell b after this session's read.
    const other = notebookText([code('a', ['7 * 6']), code('b', ['2 + 2'])]);
    await fsp.writeFile(path.join(w.t.root, 'stale.ipynb'), other);
    const ok = await w.run({ notebook_path: 'stale.ipynb', cell_id: 'a' });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.result.cells[0]).toMatchObject({ cell_id: 'a', status: 'ok', outputs: [{ output_type: 'execute_result', text: '42' }] });
    expect(ok.body.text).toContain('had changed');
    const nb = JSON.parse(await w.onDisk('stale.ipynb')) as { cells: Array<{ source: string[]; outputs: unknown[] }> };
    expect(nb.cells[1]?.source).toEqual(['2 + 2']);
    expect(nb.cells[0]?.outputs).toHaveLength(1);
    const refused = await w.run({ notebook_path: 'stale.ipynb', cell_id: 'b' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('FILE_MODIFIED_SINCE_READ');
    expect(refused.body.error.details.conflict).toEqual(['b']);
    w.assertValid('stale.ipynb');
  }, 60_000);

  it('names a kernelspec the server does not have, and the ones it has', async () => {
    const text = notebookText([code('k', ['1'])]).replace('"name": "python3"', '"name": "julia-1.9"');
    await fsp.writeFile(path.join(w.t.root, 'julia.ipynb'), text);
    await readFully(w.t, 'julia.ipynb');
    const res = await w.run({ notebook_path: 'julia.ipynb', cell_id: 'k' });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('KERNEL_UNAVAILABLE');
    expect(res.body.error.message).toContain('"julia-1.9"');
    expect(res.body.error.message).toContain('"python3"');
    expect(res.body.error.details).toEqual({ kernel: 'julia-1.9', available: expect.arrayContaining(['python3']) });
  });

  it('refuses bad input before any kernel starts', async () => {
    await w.put('bad.ipynb', [md('m', ['# Notes']), code('c', ['1'])]);
    const markdown = await w.run({ notebook_path: 'bad.ipynb', cell_id: 'm' });
    expect([markdown.status, markdown.body.error.code]).toEqual([400, 'INVALID_INPUT']);
    expect(markdown.body.error.message).toContain('Cell m is a markdown cell');
    const missing = await w.run({ notebook_path: 'bad.ipynb', cell_id: 'nope' });
    expect([missing.status, missing.body.error.code]).toEqual([404, 'CELL_NOT_FOUND']);
    const long = await w.run({ notebook_path: 'bad.ipynb', cell_id: 'c', timeout_ms: 600_001 });
    expect([long.status, long.body.error.code]).toEqual([400, 'INVALID_INPUT']);
    expect(JSON.stringify(long.body.error.details)).toContain('timeout_ms');
    const noCell = await w.run({ notebook_path: 'bad.ipynb' });
    expect([noCell.status, noCell.body.error.code]).toEqual([400, 'INVALID_INPUT']);
    const allWithCell = await w.run({ notebook_path: 'bad.ipynb', mode: 'all', cell_id: 'c' });
    expect([allWithCell.status, allWithCell.body.error.code]).toEqual([400, 'INVALID_INPUT']);
    await fsp.writeFile(path.join(w.t.root, 'script.py'), 'print(1)\n');
    const wrong = await w.run({ notebook_path: 'script.py', cell_id: 'c' });
    expect([wrong.status, wrong.body.error.code]).toEqual([400, 'WRONG_TOOL']);
    const unread = await w.run({ notebook_path: 'bad.ipynb', cell_id: 'c' }, 'stranger');
    expect([unread.status, unread.body.error.code]).toEqual([409, 'FILE_NOT_READ']);
  });

  it('is listed in GET /v1/tools and MCP (destructive, open world) when a Jupyter Server is configured', async () => {
    const list = await w.t.request.get('/v1/tools');
    expect(list.body.tools.map((tool: { name: string }) => tool.name)).toContain('NotebookRun');
    const mcp = await w.t.request.get('/v1/tools?dialect=mcp');
    const tool = mcp.body.tools.find((x: { name: string }) => x.name === 'NotebookRun');
    expect(tool.annotations).toMatchObject({ destructiveHint: true, openWorldHint: true, readOnlyHint: false });
    const openai = await w.t.request.get('/v1/tools?dialect=openai');
    expect(openai.body.tools.map((x: { name: string }) => x.name)).toContain('NotebookRun');
  });

  it('records the run in history and events as NotebookRun', async () => {
    await w.put('hist.ipynb', [code('h', ['3'])]);
    const res = await w.run({ notebook_path: 'hist.ipynb', cell_id: 'h' });
    expect(res.status).toBe(200);
    const history = await w.t.request.get('/v1/history').query({ file_path: 'hist.ipynb' });
    expect(history.body.versions[0]).toMatchObject({ tool: 'NotebookRun', session: 'default' });
  });
});
