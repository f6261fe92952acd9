import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, readFully, type TestApp } from './helpers.js';

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await t.close();
});

const put = (rel: string, text: string) => fsp.writeFile(path.join(t.root, rel), text);
const bytes = async (rel: string) => (await fsp.readFile(path.join(t.root, rel))).toString();
const apply = (patch: string) => t.request.post('/v1/tools/apply_patch').send({ patch: `*** Begin Patch\n${patch}*** End Patch\n` });

const GO = 'package a\n\nfunc f() {\n\tif ok {\n\t\treturn 1\n\t}\n\treturn 0\n}\n';

describe('ApplyPatch hunks on the ladder', () => {
  it('lands a hunk written with spaces in a file indented with tabs, adding tab-indented lines', async () => {
    await put('a.go', GO);
    await readFully(t, 'a.go');
    const res = await apply('*** Update File: a.go\n@@\n     if ok {\n-        return 1\n+        log()\n+        return 2\n     }\n');
    expect(res.status).toBe(200);
    expect(res.body.result.files[0]).toMatchObject({ file_path: 'a.go', type: 'update', match: 'indentation' });
    expect(await bytes('a.go')).toBe(GO.replace('\t\treturn 1\n', '\t\tlog()\n\t\treturn 2\n'));
  });

  it('answers CONTEXT_NOT_FOUND with the closest lines and hints', async () => {
    await put('a.go', GO);
    await readFully(t, 'a.go');
    const res = await apply('*** Update File: a.go\n@@\n \tif ok {\n-\t\treturn one\n+\t\treturn 2\n \t}\n');
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('CONTEXT_NOT_FOUND');
    expect(res.body.error.details.closest).toMatchObject({
      start_line: 4,
      end_line: 6,
      hints: ['line 5: the file has "1", old_string "one"'],
    });
    expect(res.body.error.message).toContain('     5→\t\treturn 1');
    expect(await bytes('a.go')).toBe(GO);
  });

  it('a stale read answers with the diff since it; the same patch then lands', async () => {
    await put('a.txt', 'one\ntwo\nthree\n');
    await readFully(t, 'a.txt');
    // The change touches the patched line's neighbour: it cannot be merged.
    await put('a.txt', 'one\ntwo\nTHREE\n');
    const patch = '*** Update File: a.txt\n@@\n one\n-two\n+2\n';
    const stale = await apply(patch);
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe('FILE_MODIFIED_SINCE_READ');
    expect(stale.body.error.details.diff).toContain('+THREE\n');
    expect(stale.body.error.details.conflict).toEqual([[2, 3]]);
    const retry = await apply(patch);
    expect(retry.status).toBe(200);
    expect(await bytes('a.txt')).toBe('one\n2\nTHREE\n');
  });

  it('refuses added lines with an omission placeholder (PLACEHOLDER_DETECTED), unless allow_placeholders', async () => {
    await put('a.js', 'function a() {\n  return 1;\n}\n');
    await readFully(t, 'a.js');
    const patch = '*** Update File: a.js\n@@\n function a() {\n-  return 1;\n+  // ... existing code ...\n+  return 2;\n';
    const res = await apply(patch);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({
      code: 'PLACEHOLDER_DETECTED',
      details: { file_path: 'a.js', hunk: 0, line: 1, text: '  // ... existing code ...' },
    });
    expect(await bytes('a.js')).toBe('function a() {\n  return 1;\n}\n');
    const allowed = await t.request
      .post('/v1/tools/apply_patch')
      .send({ patch: `*** Begin Patch\n${patch}*** End Patch\n`, allow_placeholders: true });
    expect(allowed.status).toBe(200);
    expect(await bytes('a.js')).toBe('function a() {\n  // ... existing code ...\n  return 2;\n}\n');
  });
});
