import { execFileSync } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
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

function run(body: Record<string, unknown>, session = 'default') {
  return t.request.post('/v1/tools/notebook_run').set('X-Session-Id', session).send(body);
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
});
