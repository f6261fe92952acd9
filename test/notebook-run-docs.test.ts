import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HAS_JUPYTER, JUPYTER_NOTICE } from './support/jupyter-server.js';
import { code, startRunWorld, type RunWorld } from './support/notebook-run.js';

/** The run shown in docs/notebooks.md, replayed against a real Jupyter Server: its answer is the one printed there. */
if (!HAS_JUPYTER) console.warn(JUPYTER_NOTICE);

const DOC = readFileSync(new URL('../docs/notebooks.md', import.meta.url), 'utf8');

function shownAnswer(): unknown {
  const section = DOC.slice(DOC.indexOf('### A run, step by step'));
  const block = /```json\n([\s\S]*?)\n```/.exec(section);
  if (block === null) throw new Error('docs/notebooks.md: no JSON answer under "A run, step by step"');
  return JSON.parse(block[1] as string);
}

let w: RunWorld;
beforeAll(async () => {
  if (HAS_JUPYTER) w = await startRunWorld(1);
}, 90_000);
afterAll(async () => {
  await w?.close();
});

it.skipIf(!HAS_JUPYTER)(
  'runs the cell of the notebooks page and answers exactly what the page shows',
  async () => {
    await w.put('analysis.ipynb', [code('a1b2c3d4', ['xs = [1, 2, 3]\n', "print('rows:', len(xs))\n", 'sum(xs)'])], 'demo');
    const res = await w.run({ notebook_path: 'analysis.ipynb', cell_id: 'a1b2c3d4' }, 'demo');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual(shownAnswer());
    w.assertValid('analysis.ipynb');
  },
  60_000,
);
