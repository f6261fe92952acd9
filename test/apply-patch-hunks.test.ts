import { promises as fsp } from 'node:fs';
import path from 'node:path';
import iconv from 'iconv-lite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, readFully, type TestApp } from './helpers.js';

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await t.close();
});

const file = (rel: string) => path.join(t.root, rel);
const put = (rel: string, content: string | Buffer) =>
  fsp.mkdir(path.dirname(file(rel)), { recursive: true }).then(() => fsp.writeFile(file(rel), content));
const bytes = (rel: string) => fsp.readFile(file(rel));
const text = (rel: string) => fsp.readFile(file(rel), 'utf8');
const wrap = (body: string) => `*** Begin Patch\n${body}*** End Patch\n`;
const apply = (body: unknown, session = 'default') =>
  t.request
    .post('/v1/tools/apply_patch')
    .set('X-Session-Id', session)
    .send(body as object);

describe('POST /v1/tools/apply_patch: locating hunks', () => {
  it('answers 422 CONTEXT_NOT_FOUND with file_path, the 0-based hunk and closest; nothing changes', async () => {
    await put('a.txt', 'one\ntwo\nthree\n');
    await readFully(t, 'a.txt');
    const res = await apply({ patch: wrap('*** Update File: a.txt\n@@\n-one\n+1\n@@\n-four\n+4\n') });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('CONTEXT_NOT_FOUND');
    expect(res.body.error.details).toMatchObject({ file_path: 'a.txt', hunk: 1 });
    expect(res.body.error.details).toHaveProperty('closest');
    expect(await text('a.txt')).toBe('one\ntwo\nthree\n');
  });

  it('finds hunks in order: a hunk is looked for after the previous one', async () => {
    await put('a.txt', 'x\nb\nx\n');
    await readFully(t, 'a.txt');
    const res = await apply({ patch: wrap('*** Update File: a.txt\n@@\n x\n-b\n+B\n@@\n-x\n+X\n') });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await text('a.txt')).toBe('x\nB\nX\n');
  });

  it('answers 422 MULTIPLE_MATCHES with details.lines when nothing decides; an anchor decides', async () => {
    const src = 'class A:\n    def f(self):\n        return 1\n\nclass B:\n    def f(self):\n        return 1\n';
    await put('m.py', src);
    await readFully(t, 'm.py');
    const ambiguous = await apply({ patch: wrap('*** Update File: m.py\n@@\n-        return 1\n+        return 2\n') });
    expect(ambiguous.status).toBe(422);
    expect(ambiguous.body.error).toMatchObject({ code: 'MULTIPLE_MATCHES', details: { file_path: 'm.py', hunk: 0, lines: [3, 7] } });
    expect(await text('m.py')).toBe(src);
    const nested = await apply({
      patch: wrap('*** Update File: m.py\n@@ class B:\n@@     def f(self):\n-        return 1\n+        return 2\n'),
    });
    expect(nested.status, JSON.stringify(nested.body)).toBe(200);
    expect(await text('m.py')).toBe(src.replace(/return 1\n$/, 'return 2\n'));
  });

  it('answers CONTEXT_NOT_FOUND for an anchor that is not in the file', async () => {
    await put('m.py', 'def f():\n    pass\n');
    await readFully(t, 'm.py');
    const res = await apply({ patch: wrap('*** Update File: m.py\n@@ def g():\n-    pass\n+    return\n') });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'CONTEXT_NOT_FOUND', details: { file_path: 'm.py', hunk: 0 } });
  });

  it('pins a hunk to the end with *** End of File', async () => {
    await put('a.txt', 'x\ny\nx\n');
    await readFully(t, 'a.txt');
    const res = await apply({ patch: wrap('*** Update File: a.txt\n@@\n-x\n+z\n*** End of File\n') });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await text('a.txt')).toBe('x\ny\nz\n');
  });

  it('appends a hunk of only + lines at the end of the file', async () => {
    await put('a.txt', 'a\nb\n');
    await readFully(t, 'a.txt');
    expect((await apply({ patch: wrap('*** Update File: a.txt\n@@\n+c\n+d\n') })).status).toBe(200);
    expect(await text('a.txt')).toBe('a\nb\nc\nd\n');
  });
});

describe('POST /v1/tools/apply_patch: bytes', () => {
  it('patches a CRLF file: added lines take CRLF, every other byte stays', async () => {
    const before = 'a\r\nb\r\nc\r\nd\r\ne\r\n';
    await put('w.bat', before);
    await readFully(t, 'w.bat');
    const res = await apply({ patch: wrap('*** Update File: w.bat\n@@\n b\n-c\n+C1\n+C2\n d\n') });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await bytes('w.bat')).toString('latin1')).toBe('a\r\nb\r\nC1\r\nC2\r\nd\r\ne\r\n');
  });

  it("keeps a mixed-ending file's own breaks on context lines", async () => {
    await put('m.txt', 'a\nb\r\nc\r\nd\n');
    await readFully(t, 'm.txt');
    expect((await apply({ patch: wrap('*** Update File: m.txt\n@@\n a\n b\n-c\n+X\n d\n') })).status).toBe(200);
    expect(await text('m.txt')).toBe('a\nb\r\nX\nd\n');
  });

  it('patches a GBK file in GBK: every byte outside the hunk is identical', async () => {
    const src =
      '# 数据清洗脚本\n# 处理缺失值：用列的中位数填充\nimport pandas as pd\n\ndef 清洗(df):\n    """删除重复行，并填充缺失值。"""\n    df = df.drop_duplicates()\n    return df.fillna(df.median(numeric_only=True))\n\nprint("完成：数据已清洗")\n';
    const old = iconv.encode(src, 'gbk');
    await put('zh.py', old);
    await readFully(t, 'zh.py');
    const res = await apply({
      patch: wrap('*** Update File: zh.py\n@@ def 清洗(df):\n-    df = df.drop_duplicates()\n+    df = df.drop_duplicates()  # 去重\n'),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const expected = iconv.encode(src.replace('df.drop_duplicates()\n', 'df.drop_duplicates()  # 去重\n'), 'gbk');
    expect((await bytes('zh.py')).equals(expected)).toBe(true);
    const cut = old.indexOf(iconv.encode('df.drop_duplicates()', 'gbk')) + 20;
    expect((await bytes('zh.py')).subarray(0, cut).equals(old.subarray(0, cut))).toBe(true);
  });

  it("answers 422 UNSUPPORTED_ENCODING for a character the file's encoding cannot hold", async () => {
    const old = iconv.encode('# 数据清洗脚本\n# 处理缺失值：用列的中位数填充\nx = 1\n', 'gbk');
    await put('zh.py', old);
    await readFully(t, 'zh.py');
    const res = await apply({ patch: wrap('*** Update File: zh.py\n@@\n-x = 1\n+x = "✅"\n') });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('UNSUPPORTED_ENCODING');
    expect((await bytes('zh.py')).equals(old)).toBe(true);
  });

  it('keeps a UTF-8 BOM, a missing final line break, and the file mode', async () => {
    await put('b.cs', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('a\nb')]));
    await fsp.chmod(file('b.cs'), 0o751);
    await readFully(t, 'b.cs');
    expect((await apply({ patch: wrap('*** Update File: b.cs\n@@\n-b\n+B\n+C\n') })).status).toBe(200);
    expect((await bytes('b.cs')).equals(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('a\nB\nC')]))).toBe(true);
    expect((await fsp.stat(file('b.cs'))).mode & 0o777).toBe(0o751);
  });
});

describe('POST /v1/tools/apply_patch: concurrency', () => {
  it('lands both of two patches over the same files in opposite orders (one lock order: no deadlock)', async () => {
    await t.close();
    t = await makeTestApp({ config: { lockTimeoutMs: 2000 } });
    const names = Array.from({ length: 6 }, (_, i) => `f${i}.txt`);
    for (const n of names) {
      await put(n, `${n}\nend\n`);
      await readFully(t, n);
    }
    const section = (n: string, tag: string) => `*** Update File: ${n}\n@@\n ${n}\n+${tag}\n`;
    const forward = wrap(names.map((n) => section(n, 'A')).join(''));
    const backward = wrap(
      [...names]
        .reverse()
        .map((n) => section(n, 'B'))
        .join(''),
    );
    const answers = await Promise.all(Array.from({ length: 10 }, (_, k) => apply({ patch: k % 2 ? forward : backward })));
    for (const res of answers) expect(res.status, JSON.stringify(res.body)).toBe(200);
    for (const n of names) {
      const lines = (await text(n)).split('\n');
      expect(lines.filter((l) => l === 'A')).toHaveLength(5);
      expect(lines.filter((l) => l === 'B')).toHaveLength(5);
    }
  });

  it('of 8 sessions that read the same version and patch two files at once, exactly one lands', async () => {
    await put('a.txt', 'a\n');
    await put('b.txt', 'b\n');
    const sessions = Array.from({ length: 8 }, (_, k) => `s${k}`);
    for (const s of sessions) {
      await readFully(t, 'a.txt', s);
      await readFully(t, 'b.txt', s);
    }
    const answers = await Promise.all(
      sessions.map((s) => apply({ patch: wrap(`*** Update File: a.txt\n@@\n a\n+${s}\n*** Update File: b.txt\n@@\n b\n+${s}\n`) }, s)),
    );
    const won = answers.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    for (const r of answers.filter((x) => x.status !== 200)) expect(r.body.error.code).toBe('FILE_MODIFIED_SINCE_READ');
    const winner = sessions[answers.indexOf(won[0]!)];
    expect(await text('a.txt')).toBe(`a\n${winner}\n`);
    expect(await text('b.txt')).toBe(`b\n${winner}\n`);
  });

  it('lands a hunk whose lines lost their trailing blanks (rung trailing_whitespace); context lines keep the file bytes', async () => {
    await put('t.txt', 'a  \nb\t\nc\n');
    await readFully(t, 't.txt');
    const res = await apply({ patch: wrap('*** Update File: t.txt\n@@\n a\n-b\n+B\n c\n') });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.result.files[0].match).toBe('trailing_whitespace');
    expect(await text('t.txt')).toBe('a  \nB\nc\n');
  });
});
