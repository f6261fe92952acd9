import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers.js';

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await t.close();
});

const raw = (bytes: Buffer, type: string) => t.request.post('/v1/tools/apply_patch').set('Content-Type', type).send(bytes);
const addPatch = (line: Buffer) =>
  Buffer.concat([Buffer.from('*** Begin Patch\n*** Add File: cafe.txt\n+caf'), line, Buffer.from('\n*** End Patch\n')]);
const onDisk = () => fsp.readFile(path.join(t.root, 'cafe.txt')).catch(() => null);

describe('ApplyPatch raw body: charset honoured, bytes never replaced', () => {
  it('decodes text/x-diff; charset=iso-8859-1: byte E9 lands as é (C3 A9 in the UTF-8 file)', async () => {
    const res = await raw(addPatch(Buffer.from([0xe9])), 'text/x-diff; charset=iso-8859-1');
    expect(res.status).toBe(200);
    expect(await onDisk()).toEqual(Buffer.from('caf\u00e9\n', 'utf8'));
    expect((await onDisk())!.toString('hex')).toBe('636166c3a90a');
  });

  it('takes a quoted, upper-case charset (charset="Windows-1252")', async () => {
    const res = await raw(addPatch(Buffer.from([0xe9, 0x80])), 'text/x-patch; charset="Windows-1252"');
    expect(res.status).toBe(200);
    expect(await onDisk()).toEqual(Buffer.from('caf\u00e9\u20ac\n', 'utf8'));
  });

  it('takes UTF-8 with no charset as it is', async () => {
    const res = await raw(addPatch(Buffer.from('é', 'utf8')), 'text/x-diff');
    expect(res.status).toBe(200);
    expect((await onDisk())!.toString('hex')).toBe('636166c3a90a');
  });

  it('refuses invalid UTF-8 (no charset, or charset=utf-8) with 400 INVALID_INPUT; nothing written', async () => {
    for (const type of ['text/x-diff', 'text/x-diff; charset=utf-8']) {
      const res = await raw(addPatch(Buffer.from([0xe9])), type);
      expect([res.status, res.body.error.code]).toEqual([400, 'INVALID_INPUT']);
      expect(res.body.error.message).toContain('not valid UTF-8');
      expect(await onDisk()).toBeNull();
    }
  });

  it('refuses a charset it does not know with 400 INVALID_INPUT naming it', async () => {
    const res = await raw(addPatch(Buffer.from([0xe9])), 'text/x-diff; charset=x-made-up');
    expect([res.status, res.body.error.code]).toEqual([400, 'INVALID_INPUT']);
    expect(res.body.error.message).toContain('"x-made-up" is not supported');
    expect(await onDisk()).toBeNull();
  });

  it('refuses bytes the named charset cannot map (Shift_JIS lead byte without its trail)', async () => {
    const res = await raw(addPatch(Buffer.from([0x81])), 'text/x-diff; charset=shift_jis');
    expect([res.status, res.body.error.code]).toEqual([400, 'INVALID_INPUT']);
    expect(await onDisk()).toBeNull();
  });
});
