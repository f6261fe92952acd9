// `npm start` builds only when dist/ is older than its sources: a current dist/ starts at once.
// Plain Node (no tsx) so it runs on a fresh clone; compares mtimes, newest source vs dist/server.js.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const INPUTS = ['src', 'scripts/build.mjs', 'tsconfig.json', 'package.json'];

function newest(entry) {
  let stat;
  try {
    stat = statSync(entry);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return entry.endsWith('.test.ts') ? 0 : stat.mtimeMs;
  return Math.max(0, ...readdirSync(entry).map((name) => newest(path.join(entry, name))));
}

function builtAt() {
  try {
    return statSync('dist/server.js').mtimeMs;
  } catch {
    return -1;
  }
}

if (builtAt() < Math.max(...INPUTS.map(newest))) {
  const result = spawnSync(process.execPath, [path.join('scripts', 'build.mjs')], { stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
