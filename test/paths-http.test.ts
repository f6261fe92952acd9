import fs from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppConfig } from '../src/config/config.js';
import { makeTestApp, type TestApp } from './helpers.js';

/**
 * The path rules and the check order, through the real route (Write), on disk:
 * exact status and code, and nothing created outside the root.
 */
let t: TestApp;
let base: string;

async function start(config: Partial<AppConfig> = {}): Promise<void> {
  t = await makeTestApp({ config });
  base = path.dirname(t.root);
  await fs.mkdir(path.join(base, 'elsewhere'), { recursive: true });
  await fs.mkdir(path.join(base, 'ws-evil'), { recursive: true });
  await fs.mkdir(path.join(t.root, 'dir'), { recursive: true });
}

afterEach(async () => {
  await t?.close();
});

async function write(filePath: string, content = 'hello\n') {
  const res = await t.request.post('/v1/tools/write').send({ file_path: filePath, content });
  // Security: no answer ever carries the root's absolute path or anything around it.
  expect(JSON.stringify(res.body)).not.toContain(base);
  return res;
}

async function expectRefused(filePath: string, status: number, code: string): Promise<void> {
  const res = await write(filePath);
  expect(res.status).toBe(status);
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.error.message).toBe('string');
}

async function outsideEntries(): Promise<string[]> {
  return [...(await fs.readdir(path.join(base, 'elsewhere'))), ...(await fs.readdir(path.join(base, 'ws-evil')))];
}

describe('paths through the Write route', () => {
  it('writes relative and absolute-in-root paths and answers with the relative path', async () => {
    await start();
    const a = await write('dir/a.txt');
    expect(a.status).toBe(200);
    expect(a.body.result.file_path).toBe('dir/a.txt');
    const b = await write(path.join(t.root, 'dir/b.txt'));
    expect(b.status).toBe(200);
    expect(b.body.result.file_path).toBe('dir/b.txt');
    expect(await fs.readFile(path.join(t.root, 'dir/b.txt'), 'utf8')).toBe('hello\n');
  });

  it.each(['résumé/日本語.txt', 'with space/a b.txt', '100%/a%20b.txt'])('writes a name with unicode, spaces or %%: %s', async (name) => {
    await start();
    const res = await write(name);
    expect(res.status).toBe(200);
    expect(res.body.result.file_path).toBe(name);
    expect(await fs.readFile(path.join(t.root, name), 'utf8')).toBe('hello\n');
  });

  it.each(['../elsewhere/x.txt', 'dir/../../elsewhere/x.txt', 'a\0b.txt', '//host/share/x', '\\\\host\\share\\x'])(
    'refuses %j with 403 PATH_OUTSIDE_WORKSPACE and creates nothing',
    async (input) => {
      await start();
      await expectRefused(input, 403, 'PATH_OUTSIDE_WORKSPACE');
      expect(await outsideEntries()).toEqual([]);
    },
  );

  it("refuses the absolute sibling <base>/ws-evil whose name starts with the root's name", async () => {
    await start();
    await expectRefused(path.join(base, 'ws-evil/x.txt'), 403, 'PATH_OUTSIDE_WORKSPACE');
    expect(await outsideEntries()).toEqual([]);
  });

  it('refuses a write through a symlinked parent folder pointing outside', async () => {
    await start();
    await fs.symlink(path.join(base, 'elsewhere'), path.join(t.root, 'linked'));
    await expectRefused('linked/new.txt', 403, 'PATH_OUTSIDE_WORKSPACE');
    expect(await outsideEntries()).toEqual([]);
  });

  it('refuses a write through a dangling link whose target outside does not exist yet', async () => {
    await start();
    await fs.symlink(path.join(base, 'ws-evil/planted.txt'), path.join(t.root, 'dangling'));
    await expectRefused('dangling', 403, 'PATH_OUTSIDE_WORKSPACE');
    expect(await outsideEntries()).toEqual([]);
  });

  it('writes through a dangling link whose target is inside, creating the target and keeping the link', async () => {
    await start();
    await fs.symlink('dir/target.txt', path.join(t.root, 'pending'));
    const res = await write('pending', 'via link\n');
    expect(res.status).toBe(200);
    expect(await fs.readFile(path.join(t.root, 'dir/target.txt'), 'utf8')).toBe('via link\n');
    expect((await fs.lstat(path.join(t.root, 'pending'))).isSymbolicLink()).toBe(true);
  });

  it('write-denies .git, nested repositories, and .git reached through a link', async () => {
    await start();
    await fs.mkdir(path.join(t.root, '.git'));
    await fs.mkdir(path.join(t.root, 'vendor/lib/.git'), { recursive: true });
    await fs.symlink('.git', path.join(t.root, 'g'));
    for (const p of ['.git/config', 'vendor/lib/.git/HEAD', 'g/hooks/pre-commit']) await expectRefused(p, 403, 'PATH_DENIED');
    expect(await fs.readdir(path.join(t.root, '.git'))).toEqual([]);
    expect((await write('.gitignore')).status).toBe(200);
  });

  it('denies a glob match also when reached through a link under another name', async () => {
    await start({ denyWrite: ['secrets/**'] });
    await fs.mkdir(path.join(t.root, 'secrets'));
    await fs.symlink('secrets', path.join(t.root, 'public'));
    await expectRefused('secrets/key', 403, 'PATH_DENIED');
    await expectRefused('public/key', 403, 'PATH_DENIED');
    expect(await fs.readdir(path.join(t.root, 'secrets'))).toEqual([]);
  });

  it('answers NOT_A_FILE for a directory and for the root itself', async () => {
    await start();
    await expectRefused('dir', 400, 'NOT_A_FILE');
    await expectRefused('.', 400, 'NOT_A_FILE');
    await expectRefused(t.root, 400, 'NOT_A_FILE');
  });

  it('checks in order: outside before deny before read-only before not-a-file', async () => {
    await start({ readOnly: true, denyWrite: ['dir/**'] });
    await fs.symlink(path.join(base, 'elsewhere'), path.join(t.root, 'linked'));
    await expectRefused('../elsewhere/x', 403, 'PATH_OUTSIDE_WORKSPACE');
    await expectRefused('linked/x', 403, 'PATH_OUTSIDE_WORKSPACE');
    await expectRefused('dir/x', 403, 'PATH_DENIED');
    await expectRefused('dir', 403, 'PATH_DENIED');
    await expectRefused('.', 403, 'READ_ONLY');
    await expectRefused('new.txt', 403, 'READ_ONLY');
  });
});
