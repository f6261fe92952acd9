import { existsSync, promises as fsp, readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { manyMatches } from '../bench/support/heavy-fixtures.js';
import { workerNice } from '../src/off-loop/worker.js';
import { makeTestApp, type TestApp } from './helpers.js';

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await t.close();
});

/** The nice value of each thread of this process (field 19 of /proc/self/task/<tid>/stat). */
function threadNices(): Map<number, number> {
  const nices = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      // The name (field 2) may hold spaces: count fields after its closing parenthesis.
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      nices.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
    } catch {
      // The thread ended meanwhile.
    }
  }
  return nices;
}

describe.skipIf(!existsSync('/proc/thread-self'))('the worker thread yields the CPU to the event loop', () => {
  it.skipIf(os.getPriority() >= 19)(
    'runs at a lower priority than the event loop thread, which keeps its own',
    async () => {
      const before = threadNices();
      // 3 MB: past OFF_LOOP_BYTES, so the Edit runs on the worker thread (started here if not yet).
      await fsp.writeFile(path.join(t.root, 'big.txt'), manyMatches(1_000_000));
      expect((await t.request.post('/v1/tools/read').send({ file_path: 'big.txt', offset: 1, limit: 1 })).status).toBe(200);
      const res = await t.request
        .post('/v1/tools/edit')
        .send({ file_path: 'big.txt', old_string: 'a', new_string: 'x', replace_all: true });
      expect([res.status, res.body.result.replacements]).toEqual([200, 1_000_000]);
      const after = threadNices();
      const base = before.get(process.pid) ?? 0;
      expect(after.get(process.pid)).toBe(base);
      // Relative to the process's own nice value, so the rule holds when the service runs under `nice`.
      expect([...after.values()]).toContain(workerNice(base));
    },
    60_000,
  );
});
