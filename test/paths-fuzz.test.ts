import fs from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers.js';

/**
 * Random file_path strings through the Write route: never a 5xx, never an answer carrying the
 * root's absolute path, never a byte written outside the root. Seeded and time-bounded.
 */
let t: TestApp;
let base: string;

beforeAll(async () => {
  t = await makeTestApp();
  base = path.dirname(t.root);
  await fs.mkdir(path.join(base, 'elsewhere/sub'), { recursive: true });
  await fs.mkdir(path.join(base, 'ws-evil'), { recursive: true });
  await fs.mkdir(path.join(t.root, 'dir/sub'), { recursive: true });
  await fs.symlink(path.join(base, 'elsewhere'), path.join(t.root, 'out'));
  await fs.symlink('../ws-evil/planted', path.join(t.root, 'dangling'));
  await fs.symlink('dir', path.join(t.root, 'in'));
});

afterAll(async () => {
  await t?.close();
});

const SEGMENTS = [
  '..',
  '.',
  '',
  'dir',
  'sub',
  'out',
  'in',
  'dangling',
  'ws',
  'ws-evil',
  'elsewhere',
  '.git',
  'a.txt',
  '\\',
  '\\\\',
  '%2e%2e',
  '\0',
  ' ',
  'é',
];

const pathArb = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
  fc
    .tuple(fc.constantFrom('', '/', '//', '\\\\', 'ROOT/', 'BASE/'), fc.array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 6 }))
    .map(([prefix, segs]) => prefix + segs.join('/')),
);

async function outsideEntries(): Promise<string[]> {
  const list = async (dir: string) => (await fs.readdir(dir, { recursive: true })).map(String).sort();
  return [...(await list(path.join(base, 'elsewhere'))), ...(await list(path.join(base, 'ws-evil'))), ...(await fs.readdir(base)).sort()];
}

describe('file_path fuzzing through the Write route', () => {
  it('never answers 5xx, never shows the root, never writes outside', async () => {
    const before = await outsideEntries();
    await fc.assert(
      fc.asyncProperty(pathArb, async (raw) => {
        const filePath = raw.replace(/^ROOT\//, `${t.root}/`).replace(/^BASE\//, `${base}/`);
        const res = await t.app.inject({ method: 'POST', url: '/v1/tools/write', payload: { file_path: filePath, content: 'x' } });
        expect(res.statusCode).toBeLessThan(500);
        expect(res.body).not.toContain(base);
        const body = res.json();
        if (res.statusCode === 200) expect(typeof body.result.file_path).toBe('string');
        else expect(typeof body.error.code).toBe('string');
      }),
      { seed: 7, numRuns: 400, interruptAfterTimeLimit: 3_000 },
    );
    expect(await outsideEntries()).toEqual(before);
  });
});
