import { promises as fsp } from 'node:fs';
import pino from 'pino';
import { FsHistoryStore } from '../../src/history/fs-history-store.js';
import { makeResolver } from '../../src/http/path-policy.js';
import { MemoryReadStateStore } from '../../src/read-state/memory-store.js';
import { sha256Hex, stampOf } from '../../src/read-state/unchanged.js';
import type { ToolContext, WriteEvent } from '../../src/tools/types.js';
import { MemoryLockManager } from '../../src/write/lock-manager.js';
import { countTextLines } from '../../src/write/text-lines.js';
import { makeTempDirs } from './temp-dirs.js';

/** Test-only: a ToolContext on a fresh temp workspace, without HTTP. */
export interface WriteTestbed {
  root: string;
  dataDir: string;
  base: string;
  events: WriteEvent[];
  ctx(session?: string): ToolContext;
  /** Records a Read of the whole file (or its first line only) in `session`, as Read would. */
  markRead(relative: string, session?: string, part?: boolean): Promise<void>;
  close(): Promise<void>;
}

export async function makeWriteTestbed(opts: { encodings?: Array<[string, string]> } = {}): Promise<WriteTestbed> {
  const { base, root, dataDir } = await makeTempDirs('sidefile-write-');
  const readState = new MemoryReadStateStore({ ttlMs: 3600e3, maxEntries: 10_000 });
  const locks = new MemoryLockManager();
  const history = new FsHistoryStore({ dataDir, maxVersions: 50 });
  const resolve = makeResolver(root, { denyRead: [], denyWrite: [], readOnly: false });
  const events: WriteEvent[] = [];
  const settings = {
    readOnly: false,
    lockTimeoutMs: 10_000,
    encodings: opts.encodings ?? [],
    dataDir,
    historyVersions: 50,
    denyRead: [],
    searchTimeoutMs: 10_000,
    searchMaxEntries: 1_000_000,
  };
  const ctx = (session = 'default'): ToolContext => ({
    root,
    session,
    log: pino({ level: 'silent' }),
    settings,
    readState,
    locks,
    history,
    afterWrite: (e) => events.push(e),
    resolve,
  });
  return {
    root,
    dataDir,
    base,
    events,
    ctx,
    async markRead(relative, session = 'default', part = false) {
      const target = await resolve(relative, 'read');
      const bytes = await fsp.readFile(target.real);
      const total = countTextLines(bytes.toString('utf8'));
      const end = part ? Math.min(1, total) : total;
      readState.recordRead(session, target.real, {
        stamp: stampOf(await fsp.stat(target.real)),
        hash: sha256Hex(bytes),
        unit: 'lines',
        total,
        range: end === 0 ? null : [1, end],
        rangeKey: `lines:1:${part ? 1 : 2000}`,
        bytes,
      });
    },
    close: async () => {
      // The history finishes its background work first: its folder is removed after.
      await history.close();
      await fsp.rm(base, { recursive: true, force: true });
    },
  };
}
