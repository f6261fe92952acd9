import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, readFully, type TestApp } from './helpers.js';

/**
 * ApplyPatch and notebooks: an Update of a `.ipynb` that parses as notebook JSON is
 * NotebookEdit's or Write's (WRONG_TOOL, before the read check); a broken one is text, so one
 * patch can repair it, byte for byte.
 */
let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await t.close();
});

const file = (rel: string) => path.join(t.root, rel);
const put = (rel: string, content: string) => fsp.writeFile(file(rel), content);
const text = (rel: string) => fsp.readFile(file(rel), 'utf8');
const wrap = (body: string) => `*** Begin Patch\n${body}*** End Patch\n`;
const apply = (body: unknown, session = 'default') =>
  t.request
    .post('/v1/tools/apply_patch')
    .set('X-Session-Id', session)
    .send(body as object);
const expectError = async (res: { status: number; body: any }, status: number, code: string) => {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error.code).toBe(code);
};

describe('POST /v1/tools/apply_patch: notebooks', () => {
  it('updates a broken notebook (not notebook JSON) as text, byte for byte; a valid one stays WRONG_TOOL', async () => {
    const broken = '{\r\n "cells": [\r\n  {"cell_type": "code", "source": ["x = 1"]}\r\n ],\r\n "nbformat": 4,\r\n';
    await put('broken.ipynb', broken);
    await readFully(t, 'broken.ipynb');
    const res = await apply({ patch: wrap('*** Update File: broken.ipynb\n@@\n  "nbformat": 4,\n+ "nbformat_minor": 5\n+}\n') });
    expect(res.status).toBe(200);
    expect(res.body.text).toBe('Applied patch to 1 file:\nM broken.ipynb (+2 -0)');
    const repaired =
      '{\r\n "cells": [\r\n  {"cell_type": "code", "source": ["x = 1"]}\r\n ],\r\n "nbformat": 4,\r\n "nbformat_minor": 5\r\n}\r\n';
    expect(await fsp.readFile(file('broken.ipynb'))).toEqual(Buffer.from(repaired));
    // Repaired, it parses as notebook JSON: the next Update is refused, before the read check.
    await expectError(
      await apply(
        { operations: [{ type: 'update_file', path: 'broken.ipynb', diff: '@@\n  "nbformat": 4,\n- "nbformat_minor": 5\n' }] },
        'other',
      ),
      400,
      'WRONG_TOOL',
    );
    expect(await fsp.readFile(file('broken.ipynb'))).toEqual(Buffer.from(repaired));
    await expectError(await apply({ patch: wrap('*** Update File: missing.ipynb\n@@\n-x\n+y\n') }), 404, 'FILE_NOT_FOUND');
  });

  it('asks for a Read before it updates a broken notebook', async () => {
    await put('broken.ipynb', '{"cells": [\n');
    await expectError(
      await apply({ patch: wrap('*** Update File: broken.ipynb\n@@\n-{"cells": [\n+{"cells": []}\n') }),
      409,
      'FILE_NOT_READ',
    );
    expect(await text('broken.ipynb')).toBe('{"cells": [\n');
  });
});
