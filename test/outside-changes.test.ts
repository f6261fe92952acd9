import { execFileSync, execSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServer, type ServerProcess } from './support/server-process.js';

/** Changes made by other processes (shell, python3, git) reach /v1/events as `source: "outside"`. */

interface Change {
  file_path: string;
  type: string;
  source: string;
  tool: string | null;
  at: number;
}

/** An open /v1/events stream collecting file_changed events with their arrival time. */
function openStream(base: string, query = ''): Promise<{ events: Change[]; close(): void }> {
  return new Promise((resolve, reject) => {
    const events: Change[] = [];
    const req = http.get(`${base}/v1/events${query}`, (res) => {
      let pending = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        pending += chunk;
        let end: number;
        while ((end = pending.indexOf('\n\n')) >= 0) {
          const frame = pending.slice(0, end);
          pending = pending.slice(end + 2);
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (/^event: file_changed$/m.test(frame) && data) events.push({ ...(JSON.parse(data) as Change), at: Date.now() });
        }
      });
      resolve({ events, close: () => req.destroy() });
    });
    req.on('error', reject);
  });
}

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Waits until the watcher is armed (/metrics says so). */
async function armed(base: string): Promise<void> {
  const end = Date.now() + 20_000;
  while (Date.now() < end) {
    const text = await (await fetch(`${base}/metrics`)).text();
    if (/^sidefile_watch_active 1$/m.test(text)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('watcher not armed');
}

const quiet = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('changes made outside sidefile', () => {
  let base: string;
  let root: string;
  let server: ServerProcess;

  beforeAll(async () => {
    base = await mkdtemp(path.join(os.tmpdir(), 'sidefile-outside-'));
    root = path.join(base, 'ws');
    await mkdir(path.join(root, 'src'), { recursive: true });
    await mkdir(path.join(root, 'build'), { recursive: true });
    await writeFile(path.join(root, 'src', 'a.txt'), 'one\n');
    await writeFile(path.join(root, '.gitignore'), 'build/\n');
    await writeFile(path.join(root, 'secret.env'), 'x\n');
    server = await spawnServer({ root, dataDir: path.join(base, 'data'), args: ['--deny-read', '*.env'] });
    await armed(server.base);
  }, 30_000);
  afterAll(async () => {
    await server?.kill();
    await rm(base, { recursive: true, force: true });
  });

  it('reports echo >>, mv, rm -rf and a python rewrite within a second, once each', async () => {
    const stream = await openStream(server.base);
    const started = Date.now();
    execSync('echo two >> src/a.txt', { cwd: root });
    execFileSync('python3', ['-c', "open('src/py.txt','w').write('from python\\n')"], { cwd: root });
    await until(() => stream.events.length >= 2);
    const firstLatency = Math.max(...stream.events.map((e) => e.at)) - started;
    execSync('mkdir -p gone/deep && echo x > gone/deep/f.txt', { cwd: root });
    await until(() => stream.events.some((e) => e.file_path === 'gone' || e.file_path.startsWith('gone/')));
    stream.events.length = 0;
    execSync('mv src/py.txt src/moved.txt && rm -rf gone', { cwd: root });
    await until(() => stream.events.some((e) => e.file_path === 'src/moved.txt') && stream.events.some((e) => e.file_path === 'gone'));
    await quiet(600);
    stream.close();
    const seen = stream.events.map((e) => `${e.type} ${e.file_path}`).sort();
    // Folders made and filled in one instant may not be watched yet when they are removed: their
    // removal then comes as the top folder's alone (docs/outside-changes.md). Nothing is doubled.
    const nested = ['delete gone/deep', 'delete gone/deep/f.txt'];
    expect(seen.filter((e) => !nested.includes(e))).toEqual(['create src/moved.txt', 'delete gone', 'delete src/py.txt']);
    expect(new Set(seen).size).toBe(seen.length);
    expect(stream.events.every((e) => e.source === 'outside' && e.tool === null)).toBe(true);
    // Generous bound (shared machines): the contract's figure is 1 s; the bench measures it.
    expect(firstLatency).toBeLessThan(3_000);
  });

  it('reports sidefile’s own write once, as its own, never again as outside', async () => {
    const stream = await openStream(server.base);
    const res = await fetch(`${server.base}/v1/tools/write`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-session-id': 's1' },
      body: JSON.stringify({ file_path: 'new/dir/own.txt', content: 'mine\n' }),
    });
    expect(res.status).toBe(200);
    await until(() => stream.events.length >= 1);
    await quiet(1_000);
    stream.close();
    expect(stream.events.map((e) => [e.source, e.file_path, e.type])).toEqual([['sidefile', 'new/dir/own.txt', 'create']]);
  });

  it('leaves out .git internals, deny-read paths and ignored paths unless asked, and filters by ?path=', async () => {
    const all = await openStream(server.base);
    const withIgnored = await openStream(server.base, '?include_ignored=true');
    const onlySrc = await openStream(server.base, '?path=src');
    execSync('mkdir -p .git/objects && echo 1 > .git/objects/x && echo 2 > build/out.js && echo 3 >> secret.env', { cwd: root });
    execSync('echo 4 > src/b.txt && echo 5 > subway.txt', { cwd: root });
    await until(() => all.events.length >= 2 && withIgnored.events.length >= 3 && onlySrc.events.length >= 1);
    await quiet(800);
    for (const s of [all, withIgnored, onlySrc]) s.close();
    expect(all.events.map((e) => e.file_path).sort()).toEqual(['src/b.txt', 'subway.txt']);
    expect(withIgnored.events.map((e) => e.file_path).sort()).toEqual(['build/out.js', 'src/b.txt', 'subway.txt']);
    expect(onlySrc.events.map((e) => e.file_path)).toEqual(['src/b.txt']);
  });

  it('comes through a git checkout of a branch changing 1,000 files, with /healthz answering', async () => {
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.email=t@e', '-c', 'user.name=t', ...args], { cwd: root, stdio: 'pipe' });
    git('init', '-q', '-b', 'main');
    await mkdir(path.join(root, 'many'), { recursive: true });
    for (let i = 0; i < 1000; i++) await writeFile(path.join(root, 'many', `f${i}.txt`), `main ${i}\n`);
    git('add', '-A');
    git('commit', '-qm', 'main');
    git('checkout', '-qb', 'other');
    for (let i = 0; i < 1000; i++) await writeFile(path.join(root, 'many', `f${i}.txt`), `other ${i}\n`);
    git('commit', '-qam', 'other');
    await quiet(1_000);
    const stream = await openStream(server.base, '?path=many');
    const started = Date.now();
    git('checkout', '-q', 'main');
    let worstHealth = 0;
    while (Date.now() - started < 15_000) {
      const t0 = Date.now();
      expect((await fetch(`${server.base}/healthz`)).status).toBe(200);
      worstHealth = Math.max(worstHealth, Date.now() - t0);
      const paths = new Set(stream.events.map((e) => e.file_path));
      if (paths.size >= 1000 || stream.events.some((e) => e.type === 'rescan')) break;
      await quiet(50);
    }
    await quiet(600);
    stream.close();
    const files = stream.events.filter((e) => e.type !== 'rescan').map((e) => e.file_path);
    expect(new Set(files).size).toBe(files.length);
    expect(files.length === 1000 || stream.events.some((e) => e.type === 'rescan')).toBe(true);
    expect(stream.events.every((e) => !e.file_path.startsWith('.git'))).toBe(true);
    expect(worstHealth).toBeLessThan(2_000);
  }, 60_000);
});
