import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** `npm start` rebuilds only when dist/ is older than its sources (scripts/build-if-stale.mjs). */

let dir: string;
const marker = (): string => path.join(dir, 'build-ran');

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'sidefile-start-'));
  await mkdir(path.join(dir, 'scripts'));
  await copyFile(path.resolve('scripts/build-if-stale.mjs'), path.join(dir, 'scripts/build-if-stale.mjs'));
  await mkdir(path.join(dir, 'src'));
  await mkdir(path.join(dir, 'dist'));
  // A stand-in build script that records that it ran and "builds" dist/server.js.
  await writeFile(
    path.join(dir, 'scripts/build.mjs'),
    "import fs from 'node:fs'; fs.writeFileSync('build-ran', ''); fs.writeFileSync('dist/server.js', '');\n",
  );
  for (const f of ['tsconfig.json', 'package.json']) await writeFile(path.join(dir, f), '{}');
  await writeFile(path.join(dir, 'src/server.ts'), '');
});
afterAll(async () => rm(dir, { recursive: true, force: true }));

function start(): void {
  const r = spawnSync(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: dir, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
}

async function age(file: string, secondsAgo: number): Promise<void> {
  const t = Date.now() / 1000 - secondsAgo;
  await utimes(path.join(dir, file), t, t);
}

describe('npm start', () => {
  it('builds when dist/ is missing', async () => {
    start();
    expect(existsSync(marker())).toBe(true);
    await rm(marker());
  });

  it('does not rebuild when dist/ is newer than every source', async () => {
    for (const f of ['src/server.ts', 'scripts/build.mjs', 'tsconfig.json', 'package.json']) await age(f, 60);
    await age('dist/server.js', 10);
    start();
    expect(existsSync(marker())).toBe(false);
  });

  it('ignores test files, and rebuilds when a source is newer', async () => {
    await writeFile(path.join(dir, 'src/x.test.ts'), '');
    start();
    expect(existsSync(marker())).toBe(false);
    await writeFile(path.join(dir, 'src/server.ts'), '// changed');
    start();
    expect(existsSync(marker())).toBe(true);
  });
});
