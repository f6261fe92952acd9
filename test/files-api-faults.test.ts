import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenOnLoopback, makeTestApp, type TestApp } from './helpers.js';

function tempsIn(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true })
    .map(String)
    .filter((n) => n.includes('.sidefile-tmp-'));
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('Files API: a client that goes away mid-upload', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await makeTestApp();
    base = await listenOnLoopback(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('leaves the old file and no temp file', async () => {
    fs.writeFileSync(path.join(t.root, 'old.bin'), 'the old bytes');
    const url = new URL('/v1/files/old.bin', base);
    await new Promise<void>((resolve) => {
      const req = http.request(url, {
        method: 'PUT',
        headers: { 'Content-Type': 'application/octet-stream', 'Content-Length': 10 * 1024 * 1024 },
      });
      req.on('error', () => resolve());
      req.write(Buffer.alloc(1024 * 1024, 1), () => {
        // The server has a temp file by now or soon; then the client vanishes.
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 200);
      });
    });
    await until(() => tempsIn(t.root).length === 0);
    // Give the server time to finish whatever it does with the broken upload.
    await new Promise((r) => setTimeout(r, 300));
    expect(fs.readFileSync(path.join(t.root, 'old.bin'), 'utf8')).toBe('the old bytes');
    expect(tempsIn(t.root)).toEqual([]);
    const hist = await t.request.get('/v1/history').query({ file_path: 'old.bin' });
    expect(hist.body.versions).toEqual([]);
  });
});

/** A 1 MiB tmpfs as the workspace (needs root, as in CI's container); skipped with a notice otherwise. */
function mountSmallTmpfs(): string | null {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sidefile-enospc-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    fs.rmdirSync(dir);
    return null;
  }
}

const mounted = mountSmallTmpfs();
if (!mounted) console.warn('files-api-faults: cannot mount a tmpfs (not root?): the ENOSPC test is skipped');

describe.skipIf(!mounted)('Files API: ENOSPC mid-upload', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp({ config: { root: path.join(mounted!, 'ws') } });
  });
  afterAll(async () => {
    await t.close();
    execFileSync('umount', [mounted!]);
    fs.rmdirSync(mounted!);
  });

  it('answers 507 STORAGE_FULL and changes nothing: old bytes, no temp file, no folder made', async () => {
    fs.writeFileSync(path.join(t.root, 'a.txt'), 'before');
    const big = Buffer.alloc(2 * 1024 * 1024, 7);
    const res = await t.request.put('/v1/files/a.txt').set('Content-Type', 'application/octet-stream').send(big);
    expect(res.status).toBe(507);
    expect(res.body.code).toBe('STORAGE_FULL');
    expect(res.body.error.code).toBe('STORAGE_FULL');
    expect(fs.readFileSync(path.join(t.root, 'a.txt'), 'utf8')).toBe('before');
    const fresh = await t.request.put('/v1/files/new/sub/b.bin').set('Content-Type', 'application/octet-stream').send(big);
    expect(fresh.status).toBe(507);
    expect(fs.existsSync(path.join(t.root, 'new'))).toBe(false);
    expect(tempsIn(t.root)).toEqual([]);
    expect(fs.readdirSync(t.root)).toEqual(['a.txt']);
  });
});
