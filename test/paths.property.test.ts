import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolError } from '../src/errors.js';
import { walkReal, walkRealSync, type WalkResult } from '../src/paths/real-walk.js';
import { checkLexical, resolvePath } from '../src/paths/resolve-path.js';

/**
 * Property: whatever layout of folders, files and links a workspace has, and whatever path
 * an agent sends, resolvePath never hands back something outside the root — and what it hands
 * back is exactly where the kernel would go (realpath for an existing file; for a missing one,
 * where an O_CREAT open through the same path lands). Seeded and time-bounded.
 */

const NAMES = ['a', 'b', 'c', 'x.txt'];
const TARGET_SEGMENTS = ['..', '.', 'a', 'b', 'c', 'x.txt', 'ws', 'ws-evil', 'out', 'back', 'new', ''];
const INPUT_SEGMENTS = ['..', '.', 'a', 'b', 'c', 'x.txt', 'new', 'ws', 'ws-evil', 'out', ''];

type Entry =
  { kind: 'dir' | 'file'; at: string[] } | { kind: 'link'; at: string[]; target: { abs: boolean; segments: string[] } | { fixed: string } };

const atArb = fc.array(fc.constantFrom(...NAMES), { minLength: 1, maxLength: 3 });
const targetArb = fc.oneof(
  fc.record({ abs: fc.boolean(), segments: fc.array(fc.constantFrom(...TARGET_SEGMENTS), { minLength: 1, maxLength: 5 }) }),
  fc.record({ fixed: fc.constantFrom('/', '/etc/passwd', '/nonexistent-sidefile/x') }),
);
const entryArb: fc.Arbitrary<Entry> = fc.oneof(
  fc.record({ kind: fc.constantFrom('dir' as const, 'file' as const), at: atArb }),
  fc.record({ kind: fc.constant('link' as const), at: atArb, target: targetArb }),
);
const inputArb = fc.record({
  prefix: fc.constantFrom('', '', 'root', 'base'),
  segments: fc.array(fc.constantFrom(...INPUT_SEGMENTS), { minLength: 0, maxLength: 6 }),
});

let scratch: string;

beforeAll(async () => {
  scratch = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'sidefile-paths-prop-')));
});

afterAll(async () => {
  await fs.rm(scratch, { recursive: true, force: true });
});

async function quietly(op: () => Promise<unknown>): Promise<void> {
  try {
    await op();
  } catch {
    // A generated entry may clash with an earlier one (EEXIST, ENOTDIR): the layout just lacks it.
  }
}

/** base/ws is the root; base/ws-evil, base/out (with a link back into ws) are the outside. */
async function buildLayout(base: string, entries: Entry[]): Promise<string> {
  const root = path.join(base, 'ws');
  await fs.mkdir(root, { recursive: true });
  await fs.mkdir(path.join(base, 'ws-evil'));
  await fs.mkdir(path.join(base, 'out/c'), { recursive: true });
  await fs.writeFile(path.join(base, 'out/x.txt'), 'outside');
  await fs.writeFile(path.join(base, 'ws-evil/x.txt'), 'outside');
  await fs.symlink(path.join(root, 'a'), path.join(base, 'out/back'));
  for (const e of entries) {
    const at = path.join(root, ...e.at);
    await quietly(() => fs.mkdir(path.dirname(at), { recursive: true }));
    if (e.kind === 'dir') await quietly(() => fs.mkdir(at));
    else if (e.kind === 'file') await quietly(() => fs.writeFile(at, 'inside'));
    else if (e.kind === 'link') {
      const t = e.target;
      const target = 'fixed' in t ? t.fixed : t.abs ? path.join(base, ...t.segments) : t.segments.join('/');
      await quietly(() => fs.symlink(target, at));
    }
  }
  return root;
}

/** Every entry outside the root, with its kind and size: must not change. Links are not followed. */
async function snapshotOutside(base: string): Promise<string[]> {
  const out: string[] = [...(await fs.readdir(base)).sort()];
  const walk = async (rel: string): Promise<void> => {
    const st = await fs.lstat(path.join(base, rel));
    out.push(`${rel}:${st.isSymbolicLink() ? 'l' : st.isDirectory() ? 'd' : 'f'}:${st.isFile() ? st.size : ''}`);
    if (!st.isDirectory()) return;
    for (const name of (await fs.readdir(path.join(base, rel))).sort()) await walk(`${rel}/${name}`);
  };
  await walk('ws-evil');
  await walk('out');
  return out;
}

/** Independent of the module under test on purpose: a bug there must not hide here. */
function within(root: string, p: string): boolean {
  return p === root || p.startsWith(`${root}/`);
}

const CODES = new Set(['PATH_OUTSIDE_WORKSPACE', 'FILE_NOT_FOUND', 'INVALID_INPUT']);

function summary(r: WalkResult | Error): string {
  return r instanceof Error ? `error ${r.message}` : `${r.real} ${r.failure} ${r.stat?.ino ?? 'missing'}`;
}

/** The sync walk (the writer's last check) answers exactly as the async one. */
async function checkSyncAgrees(root: string, input: string): Promise<void> {
  let absolute: string;
  try {
    absolute = checkLexical(root, input);
  } catch {
    return;
  }
  const names = absolute === root ? [] : path.relative(root, absolute).split(path.sep);
  const async = await walkReal(root, names).catch((e: Error) => e);
  let sync: WalkResult | Error;
  try {
    sync = walkRealSync(root, names);
  } catch (e) {
    sync = e as Error;
  }
  expect(summary(sync)).toBe(summary(async));
}

async function checkOne(base: string, root: string, input: string): Promise<void> {
  await checkSyncAgrees(root, input);
  let t;
  try {
    t = await resolvePath(root, input);
  } catch (err) {
    expect(err).toBeInstanceOf(ToolError);
    expect(CODES.has((err as ToolError).code)).toBe(true);
    const rest = path.isAbsolute(input) ? (err as ToolError).message : (err as ToolError).message.split(input).join('');
    expect(rest).not.toContain(base);
    return;
  }
  // Security: the one property that matters.
  expect(within(root, t.real)).toBe(true);
  expect(within(root, t.absolute)).toBe(true);
  if (t.stat) {
    // What the kernel reaches through the same lexical path is what we resolved.
    expect(await fs.realpath(t.absolute)).toBe(t.real);
    return;
  }
  await expect(fs.realpath(t.absolute)).rejects.toThrow();
  // A write through this path (O_CREAT follows a dangling link) lands at `real`, inside, or nowhere.
  let handle;
  try {
    handle = await fs.open(t.absolute, 'a');
  } catch (err) {
    expect(['ENOENT', 'ENOTDIR']).toContain((err as NodeJS.ErrnoException).code);
    return;
  }
  await handle.close();
  const landed = await fs.realpath(t.absolute);
  expect(landed).toBe(t.real);
  await fs.unlink(landed);
}

function spell(base: string, root: string, p: { prefix: string; segments: string[] }): string {
  const rel = p.segments.join('/');
  if (p.prefix === 'root') return `${root}/${rel}`;
  if (p.prefix === 'base') return `${base}/${rel}`;
  return rel;
}

describe('resolvePath property', () => {
  it('never resolves a generated path in a generated layout to anything outside the root', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(entryArb, { maxLength: 12 }),
        fc.array(inputArb, { minLength: 1, maxLength: 12 }),
        async (entries, inputs) => {
          const base = path.join(scratch, String(run++));
          await fs.mkdir(base);
          try {
            const root = await buildLayout(base, entries);
            const before = await snapshotOutside(base);
            for (const p of inputs) await checkOne(base, root, spell(base, root, p));
            // Nothing outside was created or changed by the O_CREAT probes.
            expect(await snapshotOutside(base)).toEqual(before);
          } finally {
            await fs.rm(base, { recursive: true, force: true });
          }
        },
      ),
      { seed: 20261130, numRuns: 300, interruptAfterTimeLimit: 4_000 },
    );
  });

  it('agrees with the kernel on links that point at every spot of a small fixed layout', async () => {
    // Exhaustive companion to the random property: one link, every target from a fixed list.
    // `o` links to <base>/out/c: `o/..` is <base>/out for the kernel, never the root.
    const targets = [
      'a',
      '../ws/a',
      '../ws-evil',
      '../out',
      '../out/back',
      '../out/back/f',
      'a/../../out',
      'missing/../a',
      '..',
      '.',
      '/',
      'o/..',
      'o/../x.txt',
      'o/../fresh',
      'o/../back/f',
      'o/../../ws/a/f',
      'a/f/..',
    ];
    for (const [i, target] of targets.entries()) {
      const base = path.join(scratch, `fixed-${i}`);
      await fs.mkdir(base);
      const root = await buildLayout(base, [
        { kind: 'dir', at: ['a'] },
        { kind: 'file', at: ['a', 'f'] },
        { kind: 'link', at: ['o'], target: { abs: false, segments: ['..', 'out', 'c'] } },
      ]);
      await fs.symlink(target, path.join(root, 'l'));
      for (const input of ['l', 'l/f', 'l/new', 'l/x.txt', 'l/..', 'l/./f']) await checkOne(base, root, input);
      await fs.rm(base, { recursive: true, force: true });
    }
  });
});
