/**
 * sidefile over HTTP: the built server as a child process, as users run it (default settings:
 * info-level telemetry, history kept, durable atomic writes).
 *
 * Sessions follow the contract: a Read in a session a file was already read in with the same
 * range would answer `file_unchanged`, so every timed Read uses a fresh session; a write loop
 * reads its file once in its own session and then writes repeatedly (after its own write the
 * session is current).
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Call } from './support/measure.js';
import { marker } from './support/fixtures.js';
import { httpClient, jsonOf, type HttpClient } from './support/http-client.js';
import { startSidefile, type ServerChild } from './support/sidefile-server.js';
import { rewriteContent, writeContent, type OpKey, type Peer, type Workload } from './peers-types.js';

/** Lines per establishing page: 500 lines of ~110 characters stay under the 100,000-character cap. */
const PAGE_LINES = 500;

export async function sidefilePeer(
  root: string,
  dataDir: string,
  logFile: string,
  extra: { nodeArgs?: string[]; projectDir?: string; extraArgs?: string[] } = {},
): Promise<Peer & { server: ServerChild }> {
  const server = await startSidefile({ root, dataDir, logFile, ...extra });
  const client = httpClient(server.port);
  let sessions = 0;
  const fresh = () => `peers-${process.pid}-${(sessions += 1)}`;
  const tool = async (name: string, session: string, body: unknown): Promise<void> => {
    const res = await client.request('POST', `/v1/tools/${name}`, body, { 'x-session-id': session });
    if (res.status !== 200) throw new Error(`${name}: HTTP ${res.status} ${errorCode(res.body)}`);
    if (res.body.includes('"type":"file_unchanged"')) throw new Error(`${name}: file_unchanged (session reused)`);
  };
  /** One write loop per file: its own session reads the file once, then the n-th call writes. */
  const loops = (files: string[], full: boolean, step: (rel: string, session: string, n: number) => Promise<void>) =>
    Promise.all(
      files.map(async (rel) => {
        const session = fresh();
        await readInSession(client, root, session, rel, full);
        let n = 0;
        return async () => {
          await step(rel, session, n);
          n += 1;
        };
      }),
    );
  const calls = async (op: OpKey, files: string[], w: Workload): Promise<Call[] | string> => {
    switch (op) {
      case 'read4k':
      case 'readNb':
        return files.map((rel) => () => tool('read', fresh(), { file_path: rel }));
      case 'read100k': {
        // One Read of 100 KB renders over the 100,000-character cap (FILE_TOO_LARGE): an agent
        // reads it in two pages, so one operation here is two calls in one fresh session.
        const half = Math.ceil(w.read100kLines / 2);
        return files.map((rel) => async () => {
          const session = fresh();
          await tool('read', session, { file_path: rel, offset: 1, limit: half });
          await tool('read', session, { file_path: rel, offset: half + 1 });
        });
      }
      case 'edit':
      case 'edit1m':
        return loops(files, false, (rel, session, n) =>
          tool('edit', session, { file_path: rel, old_string: marker(n), new_string: marker(n + 1) }),
        );
      case 'write':
      case 'rewrite':
        return loops(files, true, (rel, session, n) =>
          tool('write', session, { file_path: rel, content: (op === 'rewrite' ? rewriteContent : writeContent)(w, n + 1) }),
        );
      case 'nbEdit':
        return loops(files, false, (rel, session, n) =>
          tool('notebook_edit', session, { notebook_path: rel, cell_id: `cell-${w.notebook.cellIndex}`, new_source: marker(n + 1) }),
        );
    }
  };
  return {
    name: 'sidefile',
    server,
    calls,
    close: async () => {
      client.close();
      await server.stop();
    },
  };
}

/**
 * Reads `rel` in `session` (all of it when `full`, page by page). A server without the Read
 * route (while it is being built) gets the file re-created by a Write in the session instead,
 * which leaves the session just as current.
 */
export async function readInSession(client: HttpClient, root: string, session: string, rel: string, full: boolean): Promise<void> {
  for (let offset = 1; ;) {
    const res = await client.request('POST', '/v1/tools/read', { file_path: rel, offset, limit: PAGE_LINES }, { 'x-session-id': session });
    if (res.status === 404 && errorCode(res.body) === 'NOT_FOUND') return createInSession(client, root, session, rel);
    if (res.status !== 200) throw new Error(`read: HTTP ${res.status} ${errorCode(res.body)}`);
    const file = jsonOf(res).result.file as { start_line?: number; num_lines?: number; total_lines?: number | null };
    if (!full || file.num_lines === undefined || file.start_line === undefined) return;
    const seen = file.start_line + file.num_lines - 1;
    if (file.total_lines === null || file.total_lines === undefined || seen >= file.total_lines) return;
    offset = seen + 1;
  }
}

async function createInSession(client: HttpClient, root: string, session: string, rel: string): Promise<void> {
  const content = await fsp.readFile(path.join(root, rel), 'utf8');
  await fsp.rm(path.join(root, rel));
  const res = await client.request('POST', '/v1/tools/write', { file_path: rel, content }, { 'x-session-id': session });
  if (res.status !== 200) throw new Error(`write (create): HTTP ${res.status} ${errorCode(res.body)}`);
}

function errorCode(body: string): string {
  try {
    return (JSON.parse(body) as { error?: { code?: string } }).error?.code ?? '';
  } catch {
    return '';
  }
}
