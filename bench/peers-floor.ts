/**
 * The floor: bare Node fs in the bench's own process doing the same work as the tools, with
 * no protocol, no checks and no history. Writes are as durable as sidefile's (temp file, fsync,
 * rename, fsync the folder); a notebook edit is parse → change the cell → stringify.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Call } from './support/measure.js';
import { durableWrite } from './support/durable-write.js';
import { marker } from './support/fixtures.js';
import { rewriteContent, writeContent, type OpKey, type Peer, type Workload } from './peers-types.js';

export function floorPeer(root: string): Peer {
  const abs = (rel: string) => path.join(root, rel);
  const calls = async (op: OpKey, files: string[], w: Workload): Promise<Call[] | string> => {
    switch (op) {
      case 'read4k':
      case 'read100k':
        return files.map((rel) => async () => void (await fsp.readFile(abs(rel), 'utf8')));
      case 'readNb':
        return files.map((rel) => async () => void JSON.parse(await fsp.readFile(abs(rel), 'utf8')));
      case 'edit':
      case 'edit1m':
        return files.map((rel) => {
          let n = 0;
          return async () => {
            const text = await fsp.readFile(abs(rel), 'utf8');
            if (!text.includes(marker(n))) throw new Error('edit: marker not found');
            await durableWrite(
              abs(rel),
              text.replace(marker(n), () => marker(n + 1)),
            );
            n += 1;
          };
        });
      case 'write':
      case 'rewrite':
        return files.map((rel) => {
          let n = 0;
          return async () => {
            // Read first, as the tools and the bare route do (the text replaced).
            await fsp.readFile(abs(rel), 'utf8');
            await durableWrite(abs(rel), (op === 'rewrite' ? rewriteContent : writeContent)(w, n + 1));
            n += 1;
          };
        });
      case 'nbEdit':
        return files.map((rel) => {
          let n = 0;
          return async () => {
            const nb = JSON.parse(await fsp.readFile(abs(rel), 'utf8')) as { cells: Array<{ source: unknown }> };
            nb.cells[w.notebook.cellIndex]!.source = [marker(n + 1)];
            await durableWrite(abs(rel), `${JSON.stringify(nb, null, 1)}\n`);
            n += 1;
          };
        });
    }
  };
  return { name: 'floor', calls, close: async () => {} };
}
