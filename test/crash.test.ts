import { spawn } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupJournal } from '../src/write/journal.js';

const SIZE = 4 * 1024 * 1024;
const WRITER = path.resolve(process.cwd(), 'test/crash-writer.ts');

let base: string;
let root: string;
let dataDir: string;
const A = Buffer.alloc(SIZE, 'a');
const B = Buffer.alloc(SIZE, 'b');

beforeAll(async () => {
  base = await fsp.realpath(await fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-crash-')));
  root = path.join(base, 'ws');
  dataDir = path.join(base, 'data');
  await fsp.mkdir(root);
  await fsp.mkdir(dataDir);
});
afterAll(async () => {
  await fsp.rm(base, { recursive: true, force: true });
});

/** Starts a writer that rewrites the file A/B/A/… atomically, kills it with SIGKILL after `ms`. */
function runAndKill(target: string, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER, root, dataDir, target, String(SIZE)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    child.on('error', reject);
    child.stdout.once('data', () => setTimeout(() => child.kill('SIGKILL'), ms));
    child.on('exit', () => resolve());
  });
}

describe('crash safety', () => {
  it('leaves the old or the new bytes when the writer is killed at any moment; start-up removes its temp files', async () => {
    const target = path.join(root, 'big.bin');
    await fsp.writeFile(target, A);
    for (let round = 0; round < 6; round += 1) {
      await runAndKill(target, 20 + Math.floor(Math.random() * 250));
      const now = await fsp.readFile(target);
      expect(now.equals(A) || now.equals(B)).toBe(true);
      await cleanupJournal(dataDir);
      expect((await fsp.readdir(root)).filter((n) => n.startsWith('.sidefile-tmp-'))).toEqual([]);
    }
  });
});
