/**
 * Bounded work: `npm run bench -- stall`. For each heavy call, the
 * call's time and the slowest `GET /healthz` while it runs (one probe every 50 ms, on its own
 * connection), next to a healthz-only baseline. The target: every max within 200 ms.
 * Figures on a shared machine are noisy; the max is a single worst probe.
 */
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deepNotebook, hugeNotebook, manyMatches, numberedLines } from './support/heavy-fixtures.js';
import { httpClient, type HttpClient } from './support/http-client.js';
import { startSidefile } from './support/sidefile-server.js';
import { FAIR_CALLS, benchFairShares, registerPort } from './stall-fair.js';
import { MATCHING_CALLS } from './stall-matching.js';
import { PATCH_STALL_CASES } from './stall-patch.js';
import { BODY_CALLS } from './stall-body.js';

type Print = (line: string) => void;
const TARGET_MS = 200;
const PROBE_EVERY_MS = 50;

export interface HeavyCall {
  name: string;
  /** Puts the file in place and reads it as the call needs. */
  setup(root: string, client: HttpClient): Promise<void>;
  call(client: HttpClient): Promise<{ status: number; body: string }>;
  expect: number;
}

const post = (client: HttpClient, tool: string, body: unknown) => client.request('POST', `/v1/tools/${tool}`, body);

/** Pages through a text file so Write sees it in full. */
async function readInPages(client: HttpClient, rel: string, lines: number): Promise<void> {
  for (let offset = 1; offset <= lines; offset += 3000) {
    const res = await post(client, 'read', { file_path: rel, offset, limit: 3000 });
    if (res.status !== 200) throw new Error(`Read ${rel} at ${offset}: ${res.status} ${res.body.slice(0, 200)}`);
  }
}

function rewriteCall(lines: number): HeavyCall {
  const rel = `rewrite-${lines}.txt`;
  return {
    name: `Write rewriting every line of ${lines.toLocaleString('en')} lines (${Math.round((lines * 13) / 1024)} KiB)`,
    setup: async (root, client) => {
      await fsp.writeFile(path.join(root, rel), numberedLines(lines));
      await readInPages(client, rel, lines);
    },
    call: (client) => post(client, 'write', { file_path: rel, content: numberedLines(lines, 13, 'LINE') }),
    expect: 200,
  };
}

const CALLS: HeavyCall[] = [
  rewriteCall(10_000),
  rewriteCall(20_000),
  {
    name: 'Edit replace_all over 5,000,000 matches (15 MB)',
    setup: async (root, client) => {
      await fsp.writeFile(path.join(root, 'many.txt'), manyMatches(5_000_000));
      await post(client, 'read', { file_path: 'many.txt', offset: 1, limit: 1 });
    },
    call: (client) => post(client, 'edit', { file_path: 'many.txt', old_string: 'a', new_string: 'xy', replace_all: true }),
    expect: 200,
  },
  {
    name: 'NotebookEdit on a 1,000,000-cell notebook (67 MB)',
    setup: async (root, client) => {
      await fsp.writeFile(path.join(root, 'huge.ipynb'), hugeNotebook(1_000_000));
      await post(client, 'read', { file_path: 'huge.ipynb', offset: 1, limit: 1 });
    },
    call: (client) => post(client, 'notebook_edit', { notebook_path: 'huge.ipynb', cell_id: 'cell-999999', new_source: 'last = 1' }),
    expect: 200,
  },
  {
    name: 'Read of the 1,000,000-cell notebook (first page)',
    setup: async () => {},
    call: (client) => post(client, 'read', { file_path: 'huge.ipynb' }),
    expect: 200,
  },
  {
    name: 'NotebookEdit on a notebook nested 100,000 levels deep',
    setup: async (root, client) => {
      await fsp.writeFile(path.join(root, 'deep.ipynb'), deepNotebook(100_000));
      await post(client, 'read', { file_path: 'deep.ipynb' });
    },
    call: (client) => post(client, 'notebook_edit', { notebook_path: 'deep.ipynb', cell_id: 'cell-0', new_source: 'b' }),
    expect: 422,
  },
  ...FAIR_CALLS,
  ...PATCH_STALL_CASES,
  ...BODY_CALLS,
];

/** Probes /healthz every 50 ms until `until` settles; returns the slowest probe and the count. */
async function probe(client: HttpClient, until: Promise<unknown>): Promise<{ max: number; count: number }> {
  let done = false;
  void until.finally(() => (done = true));
  let max = 0;
  let count = 0;
  while (!done) {
    const started = performance.now();
    const res = await client.request('GET', '/healthz');
    if (res.status !== 200) throw new Error(`/healthz answered ${res.status}`);
    max = Math.max(max, performance.now() - started);
    count += 1;
    await new Promise((r) => setTimeout(r, PROBE_EVERY_MS));
  }
  return { max, count };
}

const verdict = (ms: number) => (ms <= TARGET_MS ? 'ok' : 'OVER');
const fmt = (ms: number) => `${ms.toFixed(0).padStart(6)} ms`;

export async function benchStall(print: Print): Promise<void> {
  const base = await fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-bench-stall-'));
  const root = path.join(base, 'ws');
  await fsp.mkdir(root);
  const server = await startSidefile({ root, dataDir: path.join(base, 'data'), logFile: path.join(base, 'server.log') });
  const client = httpClient(server.port);
  registerPort(client, server.port);
  const prober = httpClient(server.port, {}, 1);
  try {
    const idle = await probe(prober, new Promise((r) => setTimeout(r, 3000)));
    print(`healthz-only baseline: max ${fmt(idle.max)} over ${idle.count} probes (target ≤ ${TARGET_MS} ms)`);
    print(`${'heavy call'.padEnd(72)} ${'call'.padStart(9)}  ${'max /healthz'.padStart(12)}  probes  vs ${TARGET_MS} ms`);
    for (const heavy of [...CALLS, ...MATCHING_CALLS]) {
      await heavy.setup(root, client);
      const started = performance.now();
      const call = heavy.call(client);
      const probed = await probe(prober, call);
      const res = await call;
      const ms = performance.now() - started;
      const status = res.status === heavy.expect ? String(res.status) : `${res.status} (expected ${heavy.expect})`;
      print(
        `${heavy.name.padEnd(72)} ${fmt(ms)}  ${fmt(probed.max)}  ${String(probed.count).padStart(6)}  ${verdict(probed.max)}  [${status}]`,
      );
    }
  } finally {
    client.close();
    prober.close();
    await server.stop();
    await fsp.rm(base, { recursive: true, force: true });
  }
  await benchFairShares(print);
}
