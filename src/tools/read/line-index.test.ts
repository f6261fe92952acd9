import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { layoutOf } from '../../text/line-scan.js';
import { LineIndex, LineIndexCache } from './line-index.js';

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'sidefile-index-'));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const key = { size: 1, mtimeMs: 1, ino: 1 };

describe('LineIndex', () => {
  it('finds the last checkpoint at or before a line', () => {
    const index = new LineIndex(key, 3);
    index.push(100, 1000);
    index.push(200, 2000);
    expect(index.nearest(1)).toEqual({ line: 1, byte: 3 });
    expect(index.nearest(99)).toEqual({ line: 1, byte: 3 });
    expect(index.nearest(100)).toEqual({ line: 100, byte: 1000 });
    expect(index.nearest(5000)).toEqual({ line: 200, byte: 2000 });
  });

  it('stays bounded: when full it keeps every other checkpoint and doubles its spacing', () => {
    const index = new LineIndex(key, 0, 8);
    for (let i = 1; i <= 7; i++) index.push(1 + i * 10, i * 100);
    expect(index.checkpointCount()).toBe(8);
    index.push(81, 800);
    expect(index.checkpointCount()).toBe(5);
    expect(index.spacing).toBe(2);
    expect(index.nearest(35)).toEqual({ line: 21, byte: 200 });
    expect(index.nearest(81)).toEqual({ line: 81, byte: 800 });
  });

  it('wakes a waiter once a checkpoint reaches its line, and all waiters when the build ends', async () => {
    const index = new LineIndex(key, 0);
    let woke = 0;
    const a = index.waitFor(50).then(() => (woke += 1));
    const b = index.waitFor(500).then(() => (woke += 10));
    index.push(60, 600);
    index.linesStarted = 60;
    index.notify(false);
    await a;
    expect(woke).toBe(1);
    index.notify(true);
    await b;
    expect(woke).toBe(11);
  });
});

describe('LineIndexCache', () => {
  it('drops the least recently used index past 8 and cancels its build', async () => {
    const cache = new LineIndexCache(() => {}); // builds never start
    const files = await Promise.all(
      Array.from({ length: 9 }, async (_, i) => {
        const f = path.join(dir, `f${i}.txt`);
        await fs.writeFile(f, 'x\n');
        return f;
      }),
    );
    const first = cache.ensure(files[0]!, key, 0, layoutOf('utf-8'));
    for (const f of files.slice(1, 8)) cache.ensure(f, key, 0, layoutOf('utf-8'));
    expect(cache.ensure(files[0]!, key, 0, layoutOf('utf-8'))).toBe(first); // now most recent
    cache.ensure(files[8]!, key, 0, layoutOf('utf-8'));
    expect(cache.size()).toBe(8);
    expect(first.cancelled).toBe(false);
    const second = cache.ensure(files[1]!, key, 0, layoutOf('utf-8'));
    expect(second.cancelled).toBe(false); // files[1] was evicted and is rebuilt
    expect(cache.size()).toBe(8);
  });

  it('starts a new index for a new version and cancels the old one', () => {
    const cache = new LineIndexCache(() => {});
    const a = cache.ensure('/x', key, 0, layoutOf('utf-8'));
    const b = cache.ensure('/x', { ...key, mtimeMs: 2 }, 0, layoutOf('utf-8'));
    expect(b).not.toBe(a);
    expect(a.cancelled).toBe(true);
  });
});
