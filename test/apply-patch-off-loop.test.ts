import { promises as fsp } from 'node:fs';
import path from 'node:path';
import iconv from 'iconv-lite';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PATCH_OFF_LOOP } from '../src/off-loop/patch-jobs.js';
import { makeTestApp, readFully, type TestApp } from './helpers.js';

const jobs = vi.hoisted(() => [] as string[]);
vi.mock('../src/off-loop/off-loop.js', async (original) => {
  const real = await original<typeof import('../src/off-loop/off-loop.js')>();
  type Args = Parameters<typeof real.runOnWorker>;
  return { ...real, runOnWorker: (...args: Args) => (jobs.push(args[0].kind), real.runOnWorker(...args)) };
});

/**
 * A large patch parses on the off-loop worker and its large sections apply there. With the
 * thresholds at zero every patch takes that path: its answers and files must be byte for byte
 * those of the event loop's path.
 */

const wrap = (body: string) => `*** Begin Patch\n${body}*** End Patch\n`;
const defaults = { ...PATCH_OFF_LOOP };
const apps: TestApp[] = [];
afterEach(async () => {
  Object.assign(PATCH_OFF_LOOP, defaults);
  for (const t of apps.splice(0)) await t.close();
});

interface Case {
  files: Record<string, string | Buffer>;
  /** Files changed by another writer after the session read them. */
  changed?: Record<string, string>;
  body: object;
}

/** The call in a fresh folder: status, the answer's bytes, and every file's bytes after it. */
async function outcome({ files, changed = {}, body }: Case, offLoop: boolean) {
  Object.assign(PATCH_OFF_LOOP, offLoop ? { patchChars: 0, fileChars: 0 } : defaults);
  const t = await makeTestApp();
  apps.push(t);
  for (const [rel, content] of Object.entries(files)) {
    await fsp.writeFile(path.join(t.root, rel), content);
    await readFully(t, rel);
  }
  for (const [rel, content] of Object.entries(changed)) await fsp.writeFile(path.join(t.root, rel), content);
  jobs.length = 0;
  const res = await t.request.post('/v1/tools/apply_patch').send(body);
  // The path taken: the patch parsed on the worker, and its sections applied there.
  expect(jobs[0]).toBe(offLoop ? 'patch-parse' : undefined);
  if (offLoop && res.status === 200) expect(jobs).toContain('patch-file');
  const after: Record<string, string> = {};
  for (const name of (await fsp.readdir(t.root)).sort()) {
    if (name.startsWith('.')) continue;
    after[name] = (await fsp.readFile(path.join(t.root, name))).toString('hex');
  }
  return { status: res.status, answer: res.text, after };
}

async function expectSame(c: Case, status: number) {
  const inLoop = await outcome(c, false);
  const offLoop = await outcome(c, true);
  expect(inLoop.status, inLoop.answer).toBe(status);
  expect(offLoop).toEqual(inLoop);
  return offLoop;
}

const numbered = (n: number, eol = '\n') => Array.from({ length: n }, (_, i) => `line ${i + 1}${eol}`).join('');

describe('ApplyPatch off the event loop answers and writes exactly as on it', () => {
  it('adds a file', async () => {
    const res = await expectSame({ files: {}, body: { patch: wrap('*** Add File: new.txt\n+alpha\n+beta\n+\n+gamma\n') } }, 200);
    expect(res.after['new.txt']).toBe(Buffer.from('alpha\nbeta\n\ngamma\n').toString('hex'));
  });

  it('updates a file with several hunks, an anchor and a deletion, next to a small Add', async () => {
    const body = {
      patch: wrap(
        '*** Update File: a.txt\n@@\n line 2\n-line 3\n+three\n line 4\n@@ line 40\n line 41\n+after 41\n' +
          '@@\n-line 60\n*** End of File\n*** Add File: b.txt\n+b\n',
      ),
    };
    await expectSame({ files: { 'a.txt': numbered(60) }, body }, 200);
  });

  it('moves a file, and merges with a change made since the read', async () => {
    const moved = { patch: wrap('*** Update File: a.txt\n*** Move to: m.txt\n@@\n line 2\n-line 3\n+three\n') };
    await expectSame({ files: { 'a.txt': numbered(20) }, body: moved }, 200);
    const changed = { 'a.txt': numbered(20).replace('line 18\n', 'eighteen\n') };
    const merged = await expectSame({ files: { 'a.txt': numbered(20) }, changed, body: moved }, 200);
    expect(Buffer.from(merged.after['m.txt']!, 'hex').toString()).toContain('three\n');
    expect(Buffer.from(merged.after['m.txt']!, 'hex').toString()).toContain('eighteen\n');
    const update = { patch: wrap('*** Update File: a.txt\n@@\n line 2\n-line 3\n+three\n') };
    await expectSame({ files: { 'a.txt': numbered(20) }, changed, body: update }, 200);
  });

  it('keeps CRLF line breaks, and takes the Responses API operations', async () => {
    const body = {
      operations: [
        { type: 'update_file', path: 'w.txt', diff: '@@\n line 5\n-line 6\n+six\n+six and a half\n' },
        { type: 'create_file', path: 'c.txt', diff: '+made\n' },
      ],
    };
    const res = await expectSame({ files: { 'w.txt': numbered(10, '\r\n') }, body }, 200);
    expect(Buffer.from(res.after['w.txt']!, 'hex').toString()).toContain('six\r\nsix and a half\r\nline 7\r\n');
  });

  it('keeps a GBK file in GBK', async () => {
    const src =
      '# 数据清洗脚本\n# 处理缺失值：用列的中位数填充\nimport pandas as pd\n\ndef 清洗(df):\n    """删除重复行，并填充缺失值。"""\n    df = df.drop_duplicates()\n    return df.fillna(df.median(numeric_only=True))\n\nprint("完成：数据已清洗")\n';
    const body = {
      patch: wrap('*** Update File: zh.py\n@@ def 清洗(df):\n-    df = df.drop_duplicates()\n+    df = df.drop_duplicates()  # 去重\n'),
    };
    await expectSame({ files: { 'zh.py': iconv.encode(src, 'gbk') }, body }, 200);
  });

  it('refuses as on the loop: context not found (with closest), a placeholder, a file that exists', async () => {
    const files = { 'a.txt': numbered(30) };
    const missing = await expectSame({ files, body: { patch: wrap('*** Update File: a.txt\n@@\n line 7\n-line 8x\n+eight\n') } }, 422);
    expect(JSON.parse(missing.answer).error).toMatchObject({ code: 'CONTEXT_NOT_FOUND', details: { closest: expect.anything() } });
    const placeholder = { patch: wrap('*** Update File: a.txt\n@@\n line 7\n-line 8\n+// ... rest of the code ...\n') };
    await expectSame({ files, body: placeholder }, 422);
    const exists = await expectSame({ files, body: { patch: wrap('*** Add File: b.txt\n+b\n*** Add File: a.txt\n+a\n') } }, 409);
    expect(Object.keys(exists.after)).toEqual(['a.txt']);
  });

  it('refuses an added lone surrogate as on the loop (the patch then crosses as a string)', async () => {
    const res = await expectSame({ files: {}, body: { patch: wrap('*** Add File: s.txt\n+a \ud800 b\n') } }, 422);
    expect(JSON.parse(res.answer).error.code).toBe('UNSUPPORTED_ENCODING');
  });

  it('refuses an invalid patch as on the loop', async () => {
    await expectSame({ files: {}, body: { patch: wrap('*** Update File: a.txt\n@@\n line\n*** Bogus: x\n') } }, 400);
  });
});
