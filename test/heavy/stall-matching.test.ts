import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { almostSame, contextPatch, sameLines, unevenIndent } from '../../bench/support/matching-fixtures.js';
import { makeTestApp, type TestApp } from '../helpers.js';
import { blockedWhile } from '../loop-lag.js';

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await t.close();
});

// Generous bounds: CI is shared. `npm run bench -- stall` checks the 200 ms target;
// holds the whole call to 2 s on an idle machine, tests to 10 s.
const HEALTHZ_BOUND_MS = 1500;
const CALL_BOUND_MS = 10_000;

async function put(rel: string, text: string): Promise<void> {
  await fsp.writeFile(path.join(t.root, rel), text);
  expect((await t.request.post('/v1/tools/read').send({ file_path: rel, offset: 1, limit: 1 })).status).toBe(200);
}

const post = (tool: string, body: unknown) => t.request.post(`/v1/tools/${tool}`).send(body as object);

const CASES: Array<[string, () => unknown, number, string]> = [
  [
    'Edit',
    () => ({ tool: 'edit', body: { file_path: 'same.txt', old_string: almostSame(1001), new_string: 'x' } }),
    422,
    'STRING_NOT_FOUND',
  ],
  [
    'MultiEdit',
    () => ({ tool: 'multi_edit', body: { file_path: 'same.txt', edits: [{ old_string: almostSame(1001), new_string: 'x' }] } }),
    422,
    'STRING_NOT_FOUND',
  ],
  ['ApplyPatch', () => ({ tool: 'apply_patch', body: { patch: contextPatch('same.txt', almostSame(1001)) } }), 422, 'CONTEXT_NOT_FOUND'],
  [
    'Edit, indentation past the budget',
    () => ({ tool: 'edit', body: { file_path: 'same.txt', old_string: unevenIndent(1001), new_string: 'x' } }),
    422,
    'STRING_NOT_FOUND',
  ],
  [
    'Edit, closest for 200 lines',
    () => ({ tool: 'edit', body: { file_path: 'same.txt', old_string: almostSame(200), new_string: 'x' } }),
    422,
    'STRING_NOT_FOUND',
  ],
];

describe('matching in a 100,000-line file is bounded ("Bounded work")', () => {
  for (const [name, make, status, code] of CASES) {
    it(`${name}: a 1,001-line old text not in 100,000 lines answers ${code} without holding the loop`, async () => {
      await put('same.txt', sameLines(100_000, name.includes('indentation') ? '\tfoo bar baz' : 'foo bar baz'));
      const { tool, body } = make() as { tool: string; body: unknown };
      const started = performance.now();
      const { value: res, maxProbeMs, maxBlockMs } = await blockedWhile(t, () => post(tool, body));
      const ms = performance.now() - started;
      console.log(`${name}: ${ms.toFixed(0)} ms, probe ${maxProbeMs.toFixed(0)} ms, loop held ${maxBlockMs.toFixed(0)} ms`);
      expect([res.status, res.body.error?.code]).toEqual([status, code]);
      expect(ms).toBeLessThan(CALL_BOUND_MS);
      expect(Math.max(maxProbeMs, maxBlockMs)).toBeLessThan(HEALTHZ_BOUND_MS);
    }, 120_000);
  }

  it('a 1,000-line old text that is in the file lands at its rung, found in bounded time', async () => {
    const lines = Array.from({ length: 100_000 }, (_, i) => `\tline ${i} of the file`);
    await put('f.txt', `${lines.join('\n')}\n`);
    const old = lines
      .slice(50_000, 51_000)
      .map((l) => l.replace('\t', '    '))
      .join('\n');
    const {
      value: res,
      maxProbeMs,
      maxBlockMs,
    } = await blockedWhile(t, () => post('edit', { file_path: 'f.txt', old_string: old, new_string: '    changed' }));
    expect([res.status, res.body.result?.match]).toEqual([200, 'indentation']);
    const after = (await fsp.readFile(path.join(t.root, 'f.txt'), 'utf8')).split('\n');
    expect(after[50_000]).toBe('\tchanged');
    expect(after[50_001]).toBe(lines[51_000]);
    expect(Math.max(maxProbeMs, maxBlockMs)).toBeLessThan(HEALTHZ_BOUND_MS);
  }, 120_000);
});
