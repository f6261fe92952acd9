import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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
const call = (tool: string, body: Record<string, unknown>) => t.request.post(`/v1/tools/${tool}`).send(body);

const SOURCE = 'function a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n';

describe('PLACEHOLDER_DETECTED', () => {
  const placeholders = [
    '// ... existing code ...',
    '# rest of the file unchanged',
    '/* other methods stay the same */',
    '<!-- rest of the page -->',
    '  // ...rest of the function',
    '// existing code',
  ];
  for (const line of placeholders) {
    it(`refuses an Edit whose new_string adds ${JSON.stringify(line)}, nothing written`, async () => {
      await put('a.js', SOURCE);
      await readFully(t, 'a.js');
      const res = await call('edit', {
        file_path: 'a.js',
        old_string: 'function a() {\n  return 1;\n}',
        new_string: `function a() {\n${line}\n  return 10;\n}`,
      });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('PLACEHOLDER_DETECTED');
      expect(res.body.error.details).toEqual({ line: 2, text: line });
      expect(res.body.error.message).toContain(`"${line.trim()}"`);
      expect(res.body.error.message).toContain('Send the full text');
      expect(await bytes('a.js')).toBe(SOURCE);
    });
  }

  it('writes it as given with allow_placeholders: true', async () => {
    await put('a.js', SOURCE);
    await readFully(t, 'a.js');
    const res = await call('edit', {
      file_path: 'a.js',
      old_string: '  return 1;',
      new_string: '  // ... existing code ...',
      allow_placeholders: true,
    });
    expect(res.status).toBe(200);
    expect(await bytes('a.js')).toBe(SOURCE.replace('  return 1;', '  // ... existing code ...'));
  });

  it('accepts a placeholder line the replaced text already had', async () => {
    const text = 'a\n// ... existing code ...\nb\n';
    await put('a.js', text);
    await readFully(t, 'a.js');
    const res = await call('edit', {
      file_path: 'a.js',
      old_string: 'a\n// ... existing code ...',
      new_string: 'A\n// ... existing code ...',
    });
    expect(res.status).toBe(200);
  });

  const code = ['    ...', '    pass', 'f(...args)', '# The rest of the function validates the input.', 'const rest = [...items];'];
  for (const line of code) {
    it(`writes code and prose as given: ${JSON.stringify(line)}`, async () => {
      await put('a.py', 'def f():\n    return 1\n');
      await readFully(t, 'a.py');
      const res = await call('edit', { file_path: 'a.py', old_string: '    return 1', new_string: line });
      expect(res.status).toBe(200);
      expect(await bytes('a.py')).toBe(`def f():\n${line}\n`);
    });
  }

  it('MultiEdit names the edit; Write checks content over an existing file, not a new one', async () => {
    await put('a.js', SOURCE);
    await readFully(t, 'a.js');
    const multi = await call('multi_edit', {
      file_path: 'a.js',
      edits: [
        { old_string: 'return 1', new_string: 'return 3' },
        { old_string: '  return 2;', new_string: '  // rest of the function unchanged' },
      ],
    });
    expect(multi.status).toBe(422);
    expect(multi.body.error).toMatchObject({
      code: 'PLACEHOLDER_DETECTED',
      details: { edit_index: 1, line: 1, text: '  // rest of the function unchanged' },
    });
    const write = await call('write', { file_path: 'a.js', content: 'function a() {}\n// ... existing code ...\n' });
    expect(write.status).toBe(422);
    expect(write.body.error).toMatchObject({ code: 'PLACEHOLDER_DETECTED', details: { line: 2, text: '// ... existing code ...' } });
    expect(await bytes('a.js')).toBe(SOURCE);
    const created = await call('write', { file_path: 'new.js', content: '// ... existing code ...\n' });
    expect(created.status).toBe(200);
    const allowed = await call('write', { file_path: 'a.js', content: '// ... existing code ...\n', allow_placeholders: true });
    expect(allowed.status).toBe(200);
    expect(await bytes('a.js')).toBe('// ... existing code ...\n');
  });

  // Write looks at the lines its patch adds: the answer must be the same as a scan
  // of the whole content, wherever in a large file the line lands.
  const big = Array.from({ length: 1900 }, (_, i) => `const v${i} = ${i};`);
  const withLine = (at: number, line: string, lines = big) => [...lines.slice(0, at), line, ...lines.slice(at + 1)].join('\n') + '\n';

  it('Write refuses a placeholder replacing one line deep in a large file, naming its line; nothing written', async () => {
    await put('big.js', `${big.join('\n')}\n`);
    await readFully(t, 'big.js');
    const res = await call('write', { file_path: 'big.js', content: withLine(1500, '  // ... existing code ...') });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'PLACEHOLDER_DETECTED', details: { line: 1501, text: '  // ... existing code ...' } });
    expect(await bytes('big.js')).toBe(`${big.join('\n')}\n`);
  });

  it('Write accepts a placeholder line the old file had elsewhere, moved in a one-line change', async () => {
    const old = withLine(10, '// ... existing code ...');
    await put('moved.js', old);
    await readFully(t, 'moved.js');
    const moved = withLine(1800, '// ... existing code ...', old.split('\n').slice(0, -1));
    const res = await call('write', { file_path: 'moved.js', content: moved });
    expect(res.status).toBe(200);
    expect(await bytes('moved.js')).toBe(moved);
  });

  it('Write finds a placeholder in a file with lone CR line breaks (several lines in one patch line)', async () => {
    await put('cr.js', 'a\rb\rc\r');
    await readFully(t, 'cr.js');
    const res = await call('write', { file_path: 'cr.js', content: 'a\r// rest of the file unchanged\rc\r' });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'PLACEHOLDER_DETECTED', details: { line: 2, text: '// rest of the file unchanged' } });
    expect(await bytes('cr.js')).toBe('a\rb\rc\r');
  });
});
