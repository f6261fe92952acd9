import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers.js';

/**
 * DELETE of a path that is a symbolic link: like every sidefile path (and like sandboxd, whose
 * path check resolves links before it acts), the path is what the link leads to. Inside the root
 * that is removed and the link stays behind, dangling; outside it is refused and nothing there
 * is touched; a dangling link is a path that does not exist.
 */
let t: TestApp;
let outside: string;
beforeEach(async () => {
  t = await makeTestApp();
  outside = fs.mkdtempSync(path.join(os.tmpdir(), 'sidefile-outside-'));
  fs.mkdirSync(path.join(outside, 'folder'));
  fs.writeFileSync(path.join(outside, 'folder/o.txt'), 'outside');
  fs.writeFileSync(path.join(outside, 'o.txt'), 'outside');
});
afterEach(async () => {
  await t.close();
  fs.rmSync(outside, { recursive: true, force: true });
});

const at = (rel: string) => path.join(t.root, rel);
const isLink = (rel: string) => fs.lstatSync(at(rel)).isSymbolicLink();
/** Every path under the outside folder with its bytes (folders as "dir"). */
function outsideState(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of fs.readdirSync(outside, { recursive: true }).map(String).sort()) {
    const p = path.join(outside, rel);
    out[rel] = fs.lstatSync(p).isDirectory() ? 'dir' : fs.readFileSync(p, 'utf8');
  }
  return out;
}

describe('Files API: DELETE of a link', () => {
  it('a link to a file inside the root removes that file (history under its own path); the link stays, dangling', async () => {
    fs.writeFileSync(at('f.txt'), 'keep me');
    fs.symlinkSync('f.txt', at('lf'));
    const res = await t.request.delete('/v1/files/lf');
    expect(res.status).toBe(204);
    expect(fs.existsSync(at('f.txt'))).toBe(false);
    expect(isLink('lf')).toBe(true);
    expect(fs.readlinkSync(at('lf'))).toBe('f.txt');
    const hist = await t.request.get('/v1/history').query({ file_path: 'f.txt' });
    expect(hist.body.versions[0]).toMatchObject({ tool: 'Remove', size: 7 });
    // Now dangling: it leads to nothing, so it is not found, and it stays.
    const again = await t.request.delete('/v1/files/lf');
    expect([again.status, again.body.code]).toEqual([404, 'FILE_NOT_FOUND']);
    expect(isLink('lf')).toBe(true);
  });

  it('a link to a folder inside the root: 409 with entries, recursive=true removes the folder; the link stays', async () => {
    fs.mkdirSync(at('dir/sub'), { recursive: true });
    fs.writeFileSync(at('dir/sub/x.txt'), 'x');
    fs.symlinkSync('dir', at('ld'));
    const res = await t.request.delete('/v1/files/ld');
    expect([res.status, res.body.code]).toEqual([409, 'DIRECTORY_NOT_EMPTY']);
    expect(fs.readFileSync(at('dir/sub/x.txt'), 'utf8')).toBe('x');
    expect((await t.request.delete('/v1/files/ld?recursive=true')).status).toBe(204);
    expect(fs.existsSync(at('dir'))).toBe(false);
    expect(isLink('ld')).toBe(true);
    fs.mkdirSync(at('empty'));
    fs.symlinkSync('empty', at('le'));
    expect((await t.request.delete('/v1/files/le')).status).toBe(204);
    expect(fs.existsSync(at('empty'))).toBe(false);
  });

  it('a link leading outside the root (file, folder, dangling; recursive or not): 403, nothing outside touched', async () => {
    const before = outsideState();
    fs.symlinkSync(path.join(outside, 'o.txt'), at('lof'));
    fs.symlinkSync(path.join(outside, 'folder'), at('lod'));
    fs.symlinkSync(path.join(outside, 'missing'), at('lom'));
    fs.mkdirSync(at('in'));
    fs.symlinkSync('../lod', at('in/chain'));
    for (const p of ['lof', 'lod', 'lod?recursive=true', 'lom', 'in/chain?recursive=true', 'lod/o.txt', 'lod/']) {
      const res = await t.request.delete(`/v1/files/${p}`);
      expect([res.status, res.body.code], p).toEqual([403, 'PATH_OUTSIDE_WORKSPACE']);
      expect(res.body.error.code, p).toBe('PATH_OUTSIDE_WORKSPACE');
      expect(JSON.stringify(res.body), p).not.toContain(outside);
    }
    expect(outsideState()).toEqual(before);
    for (const l of ['lof', 'lod', 'lom', 'in/chain']) expect(isLink(l), l).toBe(true);
  });

  it('a recursive removal of a folder holding links removes the links themselves, never what they lead to', async () => {
    fs.mkdirSync(at('tree'));
    fs.writeFileSync(at('kept.txt'), 'kept');
    fs.symlinkSync('../kept.txt', at('tree/in-file'));
    fs.symlinkSync(path.join(outside, 'folder'), at('tree/out-folder'));
    fs.symlinkSync(path.join(outside, 'o.txt'), at('tree/out-file'));
    const before = outsideState();
    expect((await t.request.delete('/v1/files/tree?recursive=true')).status).toBe(204);
    expect(fs.existsSync(at('tree'))).toBe(false);
    expect(fs.readFileSync(at('kept.txt'), 'utf8')).toBe('kept');
    expect(outsideState()).toEqual(before);
  });
});
