import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isToolError } from '../src/errors.js';
import { editInput } from '../src/tools/edit/schema.js';
import { runEdit } from '../src/tools/edit/run.js';
import { makeWriteTestbed, type WriteTestbed } from './support/test-context.js';

let bed: WriteTestbed;
beforeEach(async () => {
  bed = await makeWriteTestbed();
});
afterEach(async () => {
  await bed.close();
});

async function edit(session: string, old_string: string, new_string: string) {
  const ctx = bed.ctx(session);
  const input = editInput.parse({ file_path: 'shared.txt', old_string, new_string });
  return runEdit(input, ctx, await ctx.resolve('shared.txt', 'write'));
}

describe('concurrent writes', () => {
  it('applies all 40 parallel Edits of one session on distinct markers', async () => {
    const lines = Array.from({ length: 40 }, (_, i) => `marker-${i}: old`);
    await fsp.writeFile(path.join(bed.root, 'shared.txt'), `${lines.join('\n')}\n`);
    await bed.markRead('shared.txt', 's');
    const results = await Promise.allSettled(lines.map((_, i) => edit('s', `marker-${i}: old`, `marker-${i}: new`)));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    const expected = lines.map((_, i) => `marker-${i}: new`).join('\n') + '\n';
    expect(await fsp.readFile(path.join(bed.root, 'shared.txt'), 'utf8')).toBe(expected);
  });

  it('of 20 sessions that read the same version then edit in parallel, exactly one succeeds', async () => {
    const original = 'counter = 0\n';
    await fsp.writeFile(path.join(bed.root, 'shared.txt'), original);
    const sessions = Array.from({ length: 20 }, (_, i) => `s${i}`);
    for (const s of sessions) await bed.markRead('shared.txt', s);
    const results = await Promise.allSettled(sessions.map((s) => edit(s, 'counter = 0', `counter = ${s}`)));
    const ok = results.flatMap((r, i) => (r.status === 'fulfilled' ? [sessions[i]!] : []));
    const codes = results.flatMap((r) => (r.status === 'rejected' && isToolError(r.reason) ? [r.reason.code] : []));
    expect(ok).toHaveLength(1);
    expect(codes).toEqual(Array(19).fill('FILE_MODIFIED_SINCE_READ'));
    // Nothing lost: the file is the winner's edit, and history holds the original.
    expect(await fsp.readFile(path.join(bed.root, 'shared.txt'), 'utf8')).toBe(`counter = ${ok[0]}\n`);
    const versions = await bed.ctx().history.list('shared.txt');
    expect(versions).toHaveLength(1);
    const kept = await bed.ctx().history.load('shared.txt', versions[0]!.version);
    expect(kept?.bytes?.toString()).toBe(original);
  });
});
