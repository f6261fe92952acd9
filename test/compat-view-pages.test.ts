/**
 * The compat `view` pages as Read does: a file over 256 KiB viewed without a range answers the
 * first lines that fit, and a long line is viewed to its end with `column`, every hint in the
 * text editor's own terms.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers.js';
import { viewToEnd } from './support/compat-view.js';

const ROUTE = '/v1/compat/anthropic/text-editor';
let t: TestApp;
beforeAll(async () => {
  t = await makeTestApp();
});
afterAll(async () => t.close());

const send = (body: unknown, session = 'viewer') =>
  t.request
    .post(ROUTE)
    .set('X-Session-Id', session)
    .send(body as object);

/** 300 KiB of 100-byte lines. */
const BIG = Array.from({ length: 3072 }, (_, i) => `${String(i + 1).padStart(6, '0')} ${'z'.repeat(92)}`).join('\n') + '\n';

describe('compat view: partial views and column', () => {
  it('views a 300 KiB file as a partial view, continued by view_range', async () => {
    expect(Buffer.byteLength(BIG)).toBe(300 * 1024);
    await writeFile(path.join(t.root, 'big.txt'), BIG);
    const view = await send({ command: 'view', path: 'big.txt' });
    expect(view.status).toBe(200);
    expect(view.body.is_error).toBe(false);
    const content = view.body.content as string;
    expect(content.startsWith('     1→000001 zzz')).toBe(true);
    const closing = content.slice(content.lastIndexOf('\n(') + 1);
    // 2,000 lines of 100 characters are over 100,000 characters of text: fewer fit.
    const shown =
      /^\(Partial view: showing lines 1-(\d+) of 3072, as much as one view shows\. To see more, view with view_range \[(\d+), -1\]\.\)$/.exec(
        closing,
      );
    expect(shown, closing).not.toBeNull();
    const last = Number(shown![1]);
    expect(Number(shown![2])).toBe(last + 1);
    expect(content.length).toBeLessThanOrEqual(100_000);
    const next = await send({ command: 'view', path: 'big.txt', view_range: [last + 1, -1] });
    expect((next.body.content as string).startsWith(`${String(last + 1).padStart(6)}→${String(last + 1).padStart(6, '0')} `)).toBe(true);
  });

  it('views a long line to its end by column, from the hint of the cut line', async () => {
    const line = Array.from({ length: 900 }, (_, i) => `{"k":${i},"v":"é漢😀"}`).join(',');
    await writeFile(path.join(t.root, 'long.json'), `[${line}]\nnext line\n`);
    const first = await send({ command: 'view', path: 'long.json' }, 'long');
    expect(first.body.content).toContain(
      'Line 1 is cut at 2000 characters: to read on in it, view with view_range [1, 1] and column 2001.',
    );
    const { text, pages } = await viewToEnd((body) => send(body, 'long'), 'long.json', 1);
    expect(text).toBe(`[${line}]`);
    expect(pages).toBe(Math.ceil(text.length / 2000));
  });

  it('says a column past the line end, and refuses column over more than one line, in its own terms', async () => {
    await writeFile(path.join(t.root, 'short.txt'), 'abc\ndef\n');
    const past = await send({ command: 'view', path: 'short.txt', view_range: [2, 2], column: 10 });
    expect(past.body).toEqual({
      content: 'Line 2 of short.txt has 3 characters, so column 10 is past its end. View with a column from 1 to 3.',
      is_error: false,
    });
    const range = await send({ command: 'view', path: 'short.txt', view_range: [1, 2], column: 2 });
    expect(range.body).toEqual({
      content: 'column views one line: give view_range [line, line] with it (or no view_range for line 1), not [1, 2].',
      is_error: true,
    });
    const zero = await send({ command: 'view', path: 'short.txt', column: 0 });
    expect(zero.body.is_error).toBe(true);
    expect(zero.body.content).toContain('column');
    const ok = await send({ command: 'view', path: 'short.txt', column: 2 });
    expect(ok.body).toEqual({
      content: '     1→bc\n(Showing line 1, characters 2-3: the end of the line. To read on, view with view_range [2, -1].)',
      is_error: false,
    });
    expect(await readFile(path.join(t.root, 'short.txt'), 'utf8')).toBe('abc\ndef\n');
  });
});
