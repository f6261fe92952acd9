/**
 * ApplyPatch rows of `npm run bench -- stall`: thousands of files in one
 * patch, and 30 MB hunks (a new file, an append, a rewrite of 15 MB). Each row is the call's time and the slowest `GET /healthz` meanwhile.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { HttpClient } from './support/http-client.js';

/** The shape bench/stall.ts runs (kept structural: no import cycle). */
export interface PatchStallCase {
  name: string;
  setup(root: string, client: HttpClient): Promise<void>;
  call(client: HttpClient): Promise<{ status: number; body: string }>;
  expect: number;
}

const FILES = 10_000;
const wrap = (body: string) => `*** Begin Patch\n${body}*** End Patch\n`;
const applyPatch = (client: HttpClient, patch: string) => client.request('POST', '/v1/tools/apply_patch', { patch });
const lines = (count: number, tag: string) =>
  Array.from({ length: count }, (_, i) => `${tag} ${String(i).padStart(10, '0')} ${'x'.repeat(44)}\n`).join('');
/** Each line of `text` (which ends with a break) prefixed; the result ends with a break. */
const plus = (text: string) => text.replace(/^/gm, '+').slice(0, -1);
const minus = (text: string) => text.replace(/^/gm, '-').slice(0, -1);

export const PATCH_STALL_CASES: PatchStallCase[] = [
  {
    name: 'ApplyPatch adding 10,000 files (100 folders)',
    setup: async () => {},
    call: (client) =>
      applyPatch(client, wrap(Array.from({ length: FILES }, (_, i) => `*** Add File: p1/d${i % 100}/f${i}.txt\n+${i}\n`).join(''))),
    expect: 200,
  },
  {
    name: 'ApplyPatch adding 10,000 files, each in a new folder',
    setup: async () => {},
    call: (client) => applyPatch(client, wrap(Array.from({ length: FILES }, (_, i) => `*** Add File: p2/n${i}/f.txt\n+${i}\n`).join(''))),
    expect: 200,
  },
  {
    name: 'ApplyPatch deleting 10,000 files',
    // The first row added them in this session: a Delete needs no other read.
    setup: async () => {},
    call: (client) =>
      applyPatch(client, wrap(Array.from({ length: FILES }, (_, i) => `*** Delete File: p1/d${i % 100}/f${i}.txt\n`).join(''))),
    expect: 200,
  },
  {
    name: 'ApplyPatch adding a 30 MB file (one hunk)',
    setup: async () => {},
    call: (client) => applyPatch(client, wrap(`*** Add File: p3/big.txt\n${plus(lines(500_000, 'add'))}\n`)),
    expect: 200,
  },
  {
    name: 'ApplyPatch appending 30 MB to a file',
    setup: async (root, client) => {
      await fsp.mkdir(path.join(root, 'p3'), { recursive: true });
      await fsp.writeFile(path.join(root, 'p3/log.txt'), 'first\n');
      await client.request('POST', '/v1/tools/read', { file_path: 'p3/log.txt' });
    },
    call: (client) => applyPatch(client, wrap(`*** Update File: p3/log.txt\n@@\n${plus(lines(500_000, 'app'))}`)),
    expect: 200,
  },
  {
    name: 'ApplyPatch rewriting a 15 MB file (one hunk: 15 MB removed, 15 MB added)',
    setup: async (root, client) => {
      await fsp.mkdir(path.join(root, 'p3'), { recursive: true });
      await fsp.writeFile(path.join(root, 'p3/rewrite.txt'), lines(250_000, 'old'));
      await client.request('POST', '/v1/tools/read', { file_path: 'p3/rewrite.txt', offset: 1, limit: 1 });
    },
    call: (client) =>
      applyPatch(client, wrap(`*** Update File: p3/rewrite.txt\n@@\n${minus(lines(250_000, 'old'))}${plus(lines(250_000, 'new'))}`)),
    expect: 200,
  },
];
