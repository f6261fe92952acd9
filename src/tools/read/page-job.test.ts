import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HashCache } from './hash-cache.js';
import { runPageJob, type PageJob, type WorkerState } from './page-job.js';

let dir: string;
let state: WorkerState;
beforeAll(async () => {
  dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'sidefile-page-job-')));
  state = { policy: { root: dir, denied: (rel) => rel.endsWith('.env') }, hashes: new HashCache() };
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function jobFor(name: string, content: string): Promise<PageJob> {
  const real = path.join(dir, name);
  await fs.writeFile(real, content);
  const st = await fs.stat(real);
  return {
    kind: 'page',
    id: 7,
    policy: 1,
    real,
    relative: name,
    expected: { dev: st.dev, ino: st.ino, size: st.size },
    maxBytes: 1024,
    offset: 1,
    limit: 2000,
    unranged: true,
  };
}

describe('runPageJob (the page worker)', () => {
  it('answers a text page: its JSON, the bytes, their hash and the page, in buffers of their own', async () => {
    const { reply, transfer } = runPageJob(await jobFor('a.txt', 'one\ntwo\n'), state);
    expect(reply.id).toBe(7);
    const page = reply.page!;
    expect(JSON.parse(Buffer.from(page.json).toString()).result.file).toMatchObject({ content: 'one\ntwo', total_lines: 2, num_lines: 2 });
    expect(Buffer.from(page.bytes).toString()).toBe('one\ntwo\n');
    expect(page.hash).toBe('c3f9c8c283a2b1f2f1896f27a01cbe3cddc0c9d93f752e4639035a0f5b36f6e8');
    expect({ total: page.total, count: page.count }).toEqual({ total: 2, count: 2 });
    expect(transfer).toEqual([page.json.buffer, page.bytes.buffer]);
  });

  it('declines a file that is another inode than the one resolved', async () => {
    const job = await jobFor('b.txt', 'old\n');
    await fs.writeFile(path.join(dir, 'b2.txt'), 'new\n');
    await fs.rename(path.join(dir, 'b2.txt'), path.join(dir, 'b.txt'));
    expect(runPageJob(job, state).reply).toEqual({ id: 7 });
  });

  it('declines a file over its size limit, a denied file, a binary file, and a job with no known policy', async () => {
    expect(runPageJob(await jobFor('big.txt', 'x'.repeat(2000)), state).reply).toEqual({ id: 7 });
    expect(runPageJob(await jobFor('secret.env', 'KEY=1\n'), state).reply).toEqual({ id: 7 });
    expect(runPageJob(await jobFor('bin.dat', '\u0000\u0001\u0002'), state).reply).toEqual({ id: 7 });
    expect(runPageJob(await jobFor('c.txt', 'fine\n'), { ...state, policy: undefined }).reply).toEqual({ id: 7 });
  });
});
