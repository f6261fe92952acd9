import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findClosest } from '../src/match/index.js';
import { makeTestApp, readFully, type TestApp } from './helpers.js';

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await t.close();
});

const put = (rel: string, text: string) => fsp.writeFile(path.join(t.root, rel), text);
const bytes = async (rel: string) => (await fsp.readFile(path.join(t.root, rel))).toString();
const edit = (body: Record<string, unknown>) => t.request.post('/v1/tools/edit').send(body);

const GO = 'package a\n\nfunc f() {\n\tif ok {\n\t\treturn 1\n\t}\n\treturn 0\n}\n';

describe('Edit through the ladder', () => {
  const rungs: Array<[string, string, string, string, string]> = [
    ['exact', 'x = "a"\n', 'x = "a"', 'x = "b"', 'x = "b"\n'],
    ['quotes', 'say “hi”\n', 'say "hi"', 'say "bye"', 'say “bye”\n'],
    ['line_numbers', 'a\nb\n', '     1→a\n     2→b', '     1→A\n     2→B', 'A\nB\n'],
    ['trailing_whitespace', 'a  \nb\n', 'a\nb', 'A\nB', 'A\nB\n'],
    ['indentation', GO, '    if ok {\n        return 1\n    }', '    if ok {\n        return 2\n    }', GO.replace('return 1', 'return 2')],
    ['unicode', 'a – b\u00a0c\n', 'a - b c', 'a - d', 'a - d\n'],
  ];
  for (const [rung, file, oldString, newString, after] of rungs) {
    it(`lands at rung ${rung} and reports result.match = "${rung}"`, async () => {
      await put('f.txt', file);
      await readFully(t, 'f.txt');
      const res = await edit({ file_path: 'f.txt', old_string: oldString, new_string: newString });
      expect(res.status).toBe(200);
      expect(res.body.result.match).toBe(rung);
      expect(await bytes('f.txt')).toBe(after);
    });
  }

  it('a fuzzy rung with matches in two places answers MULTIPLE_MATCHES with details.rung and details.lines; nothing written', async () => {
    const file = 'if a:\n\tgo()\nx\nif a:\n\tgo()\n';
    await put('f.py', file);
    await readFully(t, 'f.py');
    const res = await edit({ file_path: 'f.py', old_string: 'if a:\n    go()', new_string: 'if b:\n    go()' });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('MULTIPLE_MATCHES');
    expect(res.body.error.details).toEqual({ matches: 2, rung: 'indentation', lines: [1, 4] });
    expect(res.body.error.message).toContain('starting on lines 1, 4');
    expect(await bytes('f.py')).toBe(file);
    const all = await edit({ file_path: 'f.py', old_string: 'if a:\n    go()', new_string: 'if b:\n    go()', replace_all: true });
    expect(all.status).toBe(200);
    expect(all.body.result).toMatchObject({ match: 'indentation', replacements: 2 });
    expect(await bytes('f.py')).toBe('if b:\n\tgo()\nx\nif b:\n\tgo()\n');
  });

  it('refuses an inconsistent re-indentation with STRING_NOT_FOUND naming the differences', async () => {
    await put('f.go', GO);
    await readFully(t, 'f.go');
    const res = await edit({ file_path: 'f.go', old_string: '    if ok {\n     return 1\n    }', new_string: 'x' });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('STRING_NOT_FOUND');
    expect(res.body.error.details.closest).toEqual({
      start_line: 4,
      end_line: 6,
      similarity: 1,
      text: '     4→\tif ok {\n     5→\t\treturn 1\n     6→\t}',
      hints: [
        'line 4: the file indents with a tab, old_string with 4 spaces',
        'line 5: the file indents with 2 tabs, old_string with 5 spaces',
        'line 6: the file indents with a tab, old_string with 4 spaces',
      ],
    });
    expect(await bytes('f.go')).toBe(GO);
  });

  it('refuses a shift combined with a tab width (tab / two tabs / tab written as 4 / 6 / 4 spaces)', async () => {
    const file = 'x {\n\ta()\n\t\tb()\n\tc()\n}\n';
    await put('f.go', file);
    await readFully(t, 'f.go');
    const res = await edit({ file_path: 'f.go', old_string: '    a()\n      b()\n    c()', new_string: '    a()\n      B()\n    c()' });
    expect([res.status, res.body.error.code]).toEqual([422, 'STRING_NOT_FOUND']);
    expect(await bytes('f.go')).toBe(file);
  });

  it("refuses tabs for spaces on one line next to a line already written with the file's tabs", async () => {
    const file = 'x {\n\ta()\n\t\tb()\n}\n';
    await put('f.go', file);
    await readFully(t, 'f.go');
    const res = await edit({ file_path: 'f.go', old_string: '    a()\n\t\tb()', new_string: '    a()\n\t\tB()' });
    expect([res.status, res.body.error.code]).toEqual([422, 'STRING_NOT_FOUND']);
    expect(await bytes('f.go')).toBe(file);
    // Spaces for tabs on every line is one change: it lands, the new lines in the file's tabs.
    const ok = await edit({ file_path: 'f.go', old_string: '    a()\n        b()', new_string: '    a()\n        B()\n    c()' });
    expect([ok.status, ok.body.result?.match]).toEqual([200, 'indentation']);
    expect(await bytes('f.go')).toBe('x {\n\ta()\n\t\tB()\n\tc()\n}\n');
  });

  it('STRING_NOT_FOUND shows the closest text and its hints in the message', async () => {
    await put('a.js', 'function load(user_id) {\n  return db.get(user_id);\n}\n');
    await readFully(t, 'a.js');
    const res = await edit({ file_path: 'a.js', old_string: 'function load(userId) {\n  return db.get(user_id);\n}', new_string: 'x' });
    expect(res.status).toBe(422);
    const { closest } = res.body.error.details;
    expect(closest).toMatchObject({ start_line: 1, end_line: 3, hints: ['line 1: the file has "user_id", old_string "userId"'] });
    expect(closest.similarity).toBeGreaterThanOrEqual(0.5);
    expect(res.body.error.message).toContain(closest.text);
    expect(res.body.error.message).toContain('line 1: the file has "user_id", old_string "userId"');
  });

  it('answers STRING_NOT_FOUND without closest when nothing is at least half alike', async () => {
    await put('a.txt', 'alpha\nbeta\n');
    await readFully(t, 'a.txt');
    const res = await edit({ file_path: 'a.txt', old_string: 'something else entirely', new_string: 'x' });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'STRING_NOT_FOUND', details: {} });
  });
});

describe('closest is bounded', () => {
  it('finds the closest 20 lines of a 1 MB file in under 50 ms', () => {
    const lines: string[] = [];
    for (let i = 0, size = 0; size < 1_000_000; i += 1) {
      lines.push(`\tvalue_${i} := compute(input_${i % 97}, "label ${i}")`);
      size += lines[i]!.length + 1;
    }
    const text = lines.join('\n') + '\n';
    const at = 12_000;
    const old = lines
      .slice(at, at + 20)
      .map((l, k) => (k === 7 ? l.replace('compute', 'Compute') : l.replace('\t', '    ')))
      .join('\n');
    findClosest(text, old); // warm up
    // The machine is shared: the median of several runs, not one run that a neighbour slowed.
    const times: number[] = [];
    let c = null;
    for (let r = 0; r < 9; r += 1) {
      const started = performance.now();
      c = findClosest(text, old);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    const ms = times[4]!;
    console.log(`closest: ${text.length} chars, 20-line old_string: median ${ms.toFixed(1)} ms, min ${times[0]!.toFixed(1)} ms`);
    expect(c).toMatchObject({ start_line: at + 1, end_line: at + 20 });
    expect(c!.hints).toContain(`line ${at + 8}: the file has "compute", old_string "Compute"`);
    expect(ms).toBeLessThan(50);
    // Every line differs (a renamed call): the word-voting pass scans the whole file as well.
    // Bounded, but not the 50 ms case: on this shared machine it is held to 200 ms.
    const renamed = lines
      .slice(at, at + 20)
      .map((l) => l.replace('compute', 'Compute'))
      .join('\n');
    const slow: number[] = [];
    for (let r = 0; r < 5; r += 1) {
      const started = performance.now();
      c = findClosest(text, renamed);
      slow.push(performance.now() - started);
    }
    slow.sort((a, b) => a - b);
    console.log(`closest, every line differing: median ${slow[2]!.toFixed(1)} ms, min ${slow[0]!.toFixed(1)} ms`);
    expect(c).toMatchObject({ start_line: at + 1, end_line: at + 20 });
    expect(slow[0]!).toBeLessThan(200);
  });
});
