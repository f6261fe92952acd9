import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isToolError } from '../errors.js';
import { decodeText, encodeText } from '../text/codec.js';
import { nodeWriterFs, type WriterFs } from './atomic-writer.js';
import { runWrite, type WritePlan } from './pipeline.js';
import { makeWriteTestbed, type WriteTestbed } from '../../test/support/test-context.js';

let bed: WriteTestbed;
beforeEach(async () => {
  bed = await makeWriteTestbed();
});
afterEach(async () => {
  await bed.close();
});

const file = (rel: string) => path.join(bed.root, rel);
const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

/** Replaces one line of the text it is given: a merging plan as Edit's. */
function replaceLine(from: string, to: string, fs?: WriterFs): WritePlan<null> {
  return {
    tool: 'Edit',
    requireRead: 'any',
    unit: 'lines',
    merge: { decode: (b) => decodeText(b) },
    compute: (cur) => {
      const decoded = decodeText(cur.bytes!);
      const after = decoded.text.replace(`${from}\n`, `${to}\n`);
      return { bytes: encodeText(after, decoded), before: decoded.text, after, extra: null };
    },
    ...(fs ? { fs } : {}),
  };
}

async function write(p: WritePlan<null>, session = 'default') {
  const ctx = { ...bed.ctx(), session };
  return runWrite(ctx, await ctx.resolve('a.txt', 'write'), p);
}

describe('a merged write and the last staleness check', () => {
  it('a file changed again after the merge was computed is refused, and that change is kept', async () => {
    await fsp.writeFile(file('a.txt'), lines(30));
    await bed.markRead('a.txt');
    await fsp.writeFile(file('a.txt'), lines(30).replace('line 2\n', 'two\n'));
    const late = lines(30).replace('line 2\n', 'two\n').replace('line 28\n', 'late\n');
    // Another program writes while the temp file is being written: after the merge, before the rename.
    const racing: WriterFs = {
      ...nodeWriterFs,
      open: async (p, flags, mode) => {
        if (flags === 'wx') await fsp.writeFile(file('a.txt'), late);
        return nodeWriterFs.open(p, flags, mode);
      },
    };
    const err = await write(replaceLine('line 15', 'fifteen', racing)).catch((e: unknown) => e);
    expect(isToolError(err) && err.code).toBe('FILE_MODIFIED_SINCE_READ');
    expect(await fsp.readFile(file('a.txt'), 'utf8')).toBe(late);
    const temps = (await fsp.readdir(bed.root)).filter((n) => n.startsWith('.sidefile-tmp-'));
    expect(temps).toEqual([]);
  });

  it('records the merged version as seen, so the session writes on without a read', async () => {
    await fsp.writeFile(file('a.txt'), lines(30));
    await bed.markRead('a.txt');
    await fsp.writeFile(file('a.txt'), lines(30).replace('line 2\n', 'two\n'));
    const out = await write(replaceLine('line 15', 'fifteen'));
    expect(out.merged?.answer.merged.lines).toEqual([[2, 2]]);
    expect(out.additions).toBe(1);
    expect(out.deletions).toBe(1);
    await write(replaceLine('line 20', 'twenty'));
    expect(await fsp.readFile(file('a.txt'), 'utf8')).toBe(
      lines(30).replace('line 2\n', 'two\n').replace('line 15\n', 'fifteen\n').replace('line 20\n', 'twenty\n'),
    );
  });

  it('a session that read only part of the version keeps only those lines as seen', async () => {
    await fsp.writeFile(file('a.txt'), lines(30));
    await bed.markRead('a.txt', 'default', true);
    await fsp.writeFile(file('a.txt'), lines(30).replace('line 2\n', 'two\n'));
    await write(replaceLine('line 15', 'fifteen'));
    const rec = bed.ctx().readState.get('default', (await bed.ctx().resolve('a.txt', 'write')).real);
    expect(rec?.seen).toEqual([[1, 1]]);
  });
});
