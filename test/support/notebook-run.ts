import { execFileSync } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type supertest from 'supertest';
import { readFully, type TestApp } from '../helpers.js';
import { appOn, startJupyter, type JupyterServer } from './jupyter-server.js';
import { makeTempDirs } from './temp-dirs.js';

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

/** A sidefile app and the Jupyter Server beside it, on one temp workspace. */
export interface RunWorld {
  t: TestApp;
  jupyter: JupyterServer;
  base: string;
  /** Writes a notebook and reads it in `session`. */
  put(rel: string, cells: unknown[], session?: string): Promise<string>;
  /** A NotebookRun call, sent at once (a supertest request is only sent when awaited). */
  run(body: Record<string, unknown>, session?: string): Promise<supertest.Response>;
  onDisk(rel: string): Promise<string>;
  /** nbformat's own validator (Debian's python3-nbformat, the system Python). */
  assertValid(rel: string): void;
  close(): Promise<void>;
}

export async function startRunWorld(maxKernels = 4, jupyterArgs: string[] = []): Promise<RunWorld> {
  const dirs = await makeTempDirs('sidefile-run-');
  const jupyter = await startJupyter(dirs.root, dirs.base, jupyterArgs);
  const t = await appOn(dirs, { jupyter: { url: jupyter.url, token: jupyter.token, maxKernels } });
  const file = (rel: string) => path.join(t.root, rel);
  return {
    t,
    jupyter,
    base: dirs.base,
    put: async (rel, cells, session = 'default') => {
      const text = notebookText(cells);
      await fsp.mkdir(path.dirname(file(rel)), { recursive: true });
      await fsp.writeFile(file(rel), text);
      await readFully(t, rel, session);
      return text;
    },
    run: (body, session = 'default') =>
      t.request
        .post('/v1/tools/notebook_run')
        .set('X-Session-Id', session)
        .send(body)
        .then((res) => res),
    onDisk: (rel) => fsp.readFile(file(rel), 'utf8'),
    assertValid: (rel) => {
      execFileSync('/usr/bin/python3', ['-c', 'import nbformat,sys; nbformat.validate(nbformat.read(sys.argv[1], 4))', file(rel)]);
    },
    close: async () => {
      await t.app.close();
      await jupyter.stop();
      await fsp.rm(dirs.base, { recursive: true, force: true });
    },
  };
}
