import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import { ToolError } from '../src/errors.js';
import { resolvePath } from '../src/paths/resolve-path.js';

/**
 * The on-disk layout the path tests share, fresh for every test:
 *   <base>/ws            the workspace root (real path)
 *   <base>/ws-evil, ws2, ws.bak   siblings whose names start with the root's name
 *   <base>/elsewhere     a folder outside the root, with secret.txt and a sub folder
 */
export interface Layout {
  base: string;
  root: string;
  elsewhere: string;
  /** Creates a symbolic link at `at` (relative to the root) pointing at `target`, as given. */
  link(target: string, at: string): Promise<void>;
  /** Expects `input` to be refused and checks the message names nothing outside. */
  refusal(input: string): Promise<ToolError>;
  /** Expects `input` to be refused with 403 PATH_OUTSIDE_WORKSPACE. */
  expectOutside(input: string): Promise<ToolError>;
}

export function useLayout(): Layout {
  const l = {} as Layout;
  beforeEach(async () => {
    l.base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'sidefile-paths-')));
    l.root = path.join(l.base, 'ws');
    l.elsewhere = path.join(l.base, 'elsewhere');
    for (const dir of ['ws/dir/sub', 'ws-evil', 'ws2', 'ws.bak', 'elsewhere/sub']) {
      await fs.mkdir(path.join(l.base, dir), { recursive: true });
    }
    await fs.writeFile(path.join(l.root, 'a.txt'), 'inside\n');
    await fs.writeFile(path.join(l.root, 'dir/sub/deep.txt'), 'deep\n');
    await fs.writeFile(path.join(l.elsewhere, 'secret.txt'), 'secret\n');
    for (const sib of ['ws-evil', 'ws2', 'ws.bak']) await fs.writeFile(path.join(l.base, sib, 'x.txt'), 'sibling\n');
  });
  afterEach(async () => {
    await fs.rm(l.base, { recursive: true, force: true });
  });
  l.link = async (target, at) => {
    await fs.mkdir(path.dirname(path.join(l.root, at)), { recursive: true });
    await fs.symlink(target, path.join(l.root, at));
  };
  l.refusal = async (input) => {
    try {
      await resolvePath(l.root, input);
    } catch (err) {
      expect(err).toBeInstanceOf(ToolError);
      const e = err as ToolError;
      // Security: no message names the root, the temp base, or anything outside beyond the
      // client's own relative input, which may be echoed.
      const rest = path.isAbsolute(input) ? e.message : e.message.split(input).join('');
      expect(rest).not.toContain(l.base);
      expect(rest).not.toContain('elsewhere');
      expect(rest).not.toContain('ws-evil');
      return e;
    }
    throw new Error(`expected ${JSON.stringify(input)} to be refused`);
  };
  l.expectOutside = async (input) => {
    const err = await l.refusal(input);
    expect(err.code).toBe('PATH_OUTSIDE_WORKSPACE');
    expect(err.status).toBe(403);
    return err;
  };
  return l;
}
