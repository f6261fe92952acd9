import { promises as fsp } from 'node:fs';
import path from 'node:path';
import iconv from 'iconv-lite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, readFully, type TestApp } from './helpers.js';

/** Merged, not refused: ApplyPatch (all or nothing), the guards on the session's own change, bytes kept, a race. */
let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp({ config: { encodings: [['legacy/**', 'gbk']] } });
});
afterEach(async () => {
  await t.close();
});

const file = (rel: string) => path.join(t.root, rel);
const put = (rel: string, content: string | Buffer) => fsp.writeFile(file(rel), content);
const text = async (rel: string) => fsp.readFile(file(rel), 'utf8');
const call = (tool: string, body: Record<string, unknown>, session: string) =>
  t.request.post(`/v1/tools/${tool}`).set('X-Session-Id', session).send(body);
const lines = (n: number, tag = '') => Array.from({ length: n }, (_, i) => `line ${i + 1}${tag}`).join('\n') + '\n';
const change = (s: string, n: number, to: string) => s.replace(`\nline ${n}\n`, `\n${to}\n`);
const update = (rel: string, n: number, to: string) => `*** Update File: ${rel}\n@@\n-line ${n}\n+${to}\n`;
const patch = (...sections: string[]) => `*** Begin Patch\n${sections.join('')}*** End Patch`;

describe('ApplyPatch', () => {
  it('merges each file; one file merged and another conflicting writes nothing at all', async () => {
    for (const rel of ['f1.txt', 'f2.txt']) {
      await put(rel, lines(200));
      await readFully(t, rel, 'A');
      await readFully(t, rel, 'B');
    }
    expect((await call('apply_patch', { patch: patch(update('f1.txt', 10, 'A1'), update('f2.txt', 10, 'A2')) }, 'A')).status).toBe(200);
    const [f1, f2] = [await text('f1.txt'), await text('f2.txt')];
    const refused = await call('apply_patch', { patch: patch(update('f1.txt', 150, 'B1'), update('f2.txt', 11, 'B2')) }, 'B');
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('FILE_MODIFIED_SINCE_READ');
    expect(refused.body.error.details.conflict).toEqual([[10, 11]]);
    expect([await text('f1.txt'), await text('f2.txt')]).toEqual([f1, f2]);
    // Both disjoint now. f2's read was moved to A's version by the refusal (its whole diff was
    // shown), so only f1 is merged: its entry carries A's diff.
    const res = await call('apply_patch', { patch: patch(update('f1.txt', 150, 'B1'), update('f2.txt', 150, 'B2')) }, 'B');
    expect(res.status).toBe(200);
    expect(await text('f1.txt')).toBe(change(f1, 150, 'B1'));
    expect(await text('f2.txt')).toBe(change(f2, 150, 'B2'));
    expect(res.body.result.files.map((f: { merged?: { lines: unknown } }) => f.merged?.lines)).toEqual([[[10, 10]], undefined]);
    expect(res.body.result.files[0].merged.diff).toContain('+A1');
    expect(res.body.text).toMatch(/^Applied patch to 2 files:\nM f1.txt \(\+1 -1\)\nM f2.txt \(\+1 -1\)\n/);
    expect(res.body.text).toContain('had been changed since your read');
  });
});

describe('the guards judge only the session’s own change', () => {
  const TOKEN = `ghp_${'a1B2'.repeat(9)}`;

  it('a secret the other writer added to a protected file does not refuse the merge; one of its own does', async () => {
    await put('CLAUDE.md', lines(20));
    await readFully(t, 'CLAUDE.md', 'B');
    await put('CLAUDE.md', change(lines(20), 3, `token ${TOKEN}`));
    const ok = await call('edit', { file_path: 'CLAUDE.md', old_string: '\nline 15\n', new_string: '\nfifteen\n' }, 'B');
    expect(ok.status).toBe(200);
    expect(await text('CLAUDE.md')).toBe(change(change(lines(20), 3, `token ${TOKEN}`), 15, 'fifteen'));
    await readFully(t, 'CLAUDE.md', 'C');
    await put('CLAUDE.md', change(await text('CLAUDE.md'), 5, 'someone'));
    const secret = await call('edit', { file_path: 'CLAUDE.md', old_string: '\nline 10\n', new_string: `\nkey ${TOKEN}x\n` }, 'C');
    expect(secret.status).toBe(422);
    expect(secret.body.error.code).toBe('SECRET_DETECTED');
  });

  it('a placeholder line of the other writer merges; one of its own is refused', async () => {
    await put('a.js', lines(20));
    await readFully(t, 'a.js', 'B');
    await put('a.js', change(lines(20), 3, '// ... existing code ...'));
    const ok = await call('edit', { file_path: 'a.js', old_string: '\nline 15\n', new_string: '\nfifteen\n' }, 'B');
    expect(ok.status).toBe(200);
    await readFully(t, 'a.js', 'C');
    await put('a.js', change(await text('a.js'), 5, 'someone'));
    const own = await call('edit', { file_path: 'a.js', old_string: '\nline 10\n', new_string: '\n// ... rest of the code ...\n' }, 'C');
    expect(own.status).toBe(422);
    expect(own.body.error.code).toBe('PLACEHOLDER_DETECTED');
  });
});

describe('bytes kept', () => {
  it('a GBK file with CRLF line endings merges to exactly the bytes of both changes', async () => {
    await fsp.mkdir(file('legacy'));
    const gbk = (s: string) => iconv.encode(s, 'gbk');
    const rows = Array.from({ length: 12 }, (_, i) => `第${i + 1}行 中文内容`);
    const crlf = (r: string[]) => r.map((l) => `${l}\r\n`).join('');
    await put('legacy/a.txt', gbk(crlf(rows)));
    await readFully(t, 'legacy/a.txt', 'B');
    const theirs = [...rows];
    theirs[1] = '别人改了第二行';
    await put('legacy/a.txt', gbk(crlf(theirs)));
    const res = await call('edit', { file_path: 'legacy/a.txt', old_string: '第9行 中文内容', new_string: '我改了第九行\n多一行' }, 'B');
    expect(res.status).toBe(200);
    const want = [...theirs];
    want.splice(8, 1, '我改了第九行', '多一行');
    expect((await fsp.readFile(file('legacy/a.txt'))).equals(gbk(crlf(want)))).toBe(true);
    expect(res.body.result.merged.lines).toEqual([[2, 2]]);
  });

  it('a UTF-16LE file with a BOM and CRLF merges in its own encoding', async () => {
    const utf16 = (s: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, 'utf16le')]);
    const rows = (r: string[]) => r.map((l) => `${l}\r\n`).join('');
    const base = ['eins', 'zwei', 'drei', 'vier', 'fünf', 'sechs'];
    await put('wide.txt', utf16(rows(base)));
    await readFully(t, 'wide.txt', 'B');
    await put('wide.txt', utf16(rows(['EINS', ...base.slice(1)])));
    expect((await call('edit', { file_path: 'wide.txt', old_string: 'fünf', new_string: 'FÜNF' }, 'B')).status).toBe(200);
    expect((await fsp.readFile(file('wide.txt'))).equals(utf16(rows(['EINS', 'zwei', 'drei', 'vier', 'FÜNF', 'sechs'])))).toBe(true);
  });

  it('a UTF-8 file with a BOM and mixed line endings keeps them', async () => {
    const base = '\uFEFFa\r\nb\nc\r\nd\ne\r\nf\n';
    await put('bom.txt', base);
    await readFully(t, 'bom.txt', 'B');
    await put('bom.txt', base.replace('b\n', 'B\n'));
    expect((await call('edit', { file_path: 'bom.txt', old_string: 'e', new_string: 'E' }, 'B')).status).toBe(200);
    expect(await text('bom.txt')).toBe('\uFEFFa\r\nB\nc\r\nd\nE\r\nf\n');
  });
});

describe('a race of many sessions', () => {
  it('20 sessions that read one version and edit disjoint lines at once: every edit lands', async () => {
    const original = lines(60);
    await put('race.txt', original);
    const sessions = Array.from({ length: 20 }, (_, i) => i);
    for (const i of sessions) await readFully(t, 'race.txt', `s${i}`);
    // Every third line: two unchanged lines between any two edits.
    const answers = await Promise.all(
      sessions.map((i) =>
        call('edit', { file_path: 'race.txt', old_string: `\nline ${3 * i + 2}\n`, new_string: `\nsession ${i}\n` }, `s${i}`),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(sessions.map(() => 200));
    expect(answers.filter((a) => a.body.result.merged).length).toBeGreaterThanOrEqual(19);
    let want = original;
    for (const i of sessions) want = change(want, 3 * i + 2, `session ${i}`);
    expect(await text('race.txt')).toBe(want);
  });
});
