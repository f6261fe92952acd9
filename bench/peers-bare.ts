/**
 * The bare durable route (the throughput baseline): bench/peers-bare-server.ts as a child process,
 * driven over the same loopback HTTP client as sidefile, so the ratio isolates what sidefile
 * adds (checks, sessions, lock, history, diff, telemetry) from HTTP + JSON + fsync.
 * Read 100 KB is two paged calls here too, as for sidefile.
 */
import { spawn } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import type { Call } from './support/measure.js';
import { marker } from './support/fixtures.js';
import { httpClient } from './support/http-client.js';
import { stopChild } from './support/sidefile-server.js';
import { rewriteContent, writeContent, type OpKey, type Peer, type Workload } from './peers-types.js';

export async function barePeer(root: string, logFile: string, nodeArgs: string[] = []): Promise<Peer & { pid: number }> {
  const log = await fsp.open(logFile, 'a');
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'bench/peers-bare-server.ts', root], {
    stdio: ['ignore', log.fd, log.fd, 'ipc'],
  });
  await log.close();
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bare server exited with ${code}; see ${logFile}`)));
    child.once('message', (m) => resolve((m as { port: number }).port));
  });
  child.disconnect();
  const client = httpClient(port);
  const post = async (route: string, body: unknown): Promise<void> => {
    const res = await client.request('POST', `/bare/${route}`, body);
    if (res.status !== 200) throw new Error(`bare ${route}: HTTP ${res.status}`);
  };
  const counted = (files: string[], step: (rel: string, n: number) => Promise<void>): Call[] =>
    files.map((rel) => {
      let n = 0;
      return async () => {
        await step(rel, n);
        n += 1;
      };
    });
  const calls = async (op: OpKey, files: string[], w: Workload): Promise<Call[] | string> => {
    switch (op) {
      case 'read4k':
      case 'readNb':
        return files.map((rel) => () => post('read', { file_path: rel }));
      case 'read100k': {
        const half = Math.ceil(w.read100kLines / 2);
        return files.map((rel) => async () => {
          await post('read', { file_path: rel, offset: 1, limit: half });
          await post('read', { file_path: rel, offset: half + 1 });
        });
      }
      case 'edit':
      case 'edit1m':
        return counted(files, (rel, n) => post('edit', { file_path: rel, old_string: marker(n), new_string: marker(n + 1) }));
      case 'write':
      case 'rewrite':
        return counted(files, (rel, n) =>
          post('write', { file_path: rel, content: (op === 'rewrite' ? rewriteContent : writeContent)(w, n + 1) }),
        );
      case 'nbEdit':
        return counted(files, (rel, n) =>
          post('notebook_edit', { notebook_path: rel, cell_index: w.notebook.cellIndex, new_source: marker(n + 1) }),
        );
    }
  };
  return {
    name: 'bare',
    calls,
    pid: child.pid!,
    close: async () => {
      client.close();
      await stopChild(child, 5000);
    },
  };
}
