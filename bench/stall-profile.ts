/**
 * Profiles one heavy call of `npm run bench -- stall` in the built server (`--cpu-prof`,
 * `--trace-gc`), printing each slow /healthz probe with its time since the call began, so a stall
 * can be matched to the profile and the GC log. Usage (after `npm run build`):
 *   npx tsx bench/stall-profile.ts <replace|nbedit|nbread>[,…] <outDir>   (several: in that order)
 */
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hugeNotebook, manyMatches } from './support/heavy-fixtures.js';
import { httpClient } from './support/http-client.js';
import { startSidefile } from './support/sidefile-server.js';

const [which = 'replace', outDir = '/tmp/sidefile-stall-profile'] = process.argv.slice(2);
await fsp.mkdir(outDir, { recursive: true });
const base = await fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-stall-prof-'));
const root = path.join(base, 'ws');
await fsp.mkdir(root);
const server = await startSidefile({
  root,
  dataDir: path.join(base, 'data'),
  logFile: path.join(outDir, 'server.log'),
  nodeArgs: ['--cpu-prof', '--cpu-prof-dir', outDir, '--trace-gc'],
});
const client = httpClient(server.port);
const prober = httpClient(server.port, {}, 1);
const post = (tool: string, body: unknown) => client.request('POST', `/v1/tools/${tool}`, body);
async function runOne(kind: string): Promise<void> {
  const nb = kind !== 'replace';
  await fsp.writeFile(path.join(root, nb ? 'huge.ipynb' : 'many.txt'), nb ? hugeNotebook(1_000_000) : manyMatches(5_000_000));
  await post('read', { file_path: nb ? 'huge.ipynb' : 'many.txt', offset: 1, limit: 1 });
  const started = performance.now();
  const call =
    kind === 'replace'
      ? post('edit', { file_path: 'many.txt', old_string: 'a', new_string: 'xy', replace_all: true })
      : kind === 'nbedit'
        ? post('notebook_edit', { notebook_path: 'huge.ipynb', cell_id: 'cell-999999', new_source: 'last = 1' })
        : post('read', { file_path: 'huge.ipynb' });
  let done = false;
  void call.finally(() => (done = true));
  while (!done) {
    const at = performance.now();
    await prober.request('GET', '/healthz');
    const took = performance.now() - at;
    if (took > 30) console.log(`${kind}: probe at ${(at - started).toFixed(0)} ms took ${took.toFixed(0)} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const res = await call;
  console.log(`${kind}: ${res.status} in ${(performance.now() - started).toFixed(0)} ms, ${res.body.length} bytes`);
}

try {
  for (const kind of which.split(',')) await runOne(kind);
} finally {
  client.close();
  prober.close();
  await server.stop();
  await fsp.rm(base, { recursive: true, force: true });
}
