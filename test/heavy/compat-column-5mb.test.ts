import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from '../helpers.js';
import { viewToEnd } from '../support/compat-view.js';

/** The compat `view` reads a one-line 5 MB minified JSON to its end by `column`, 2,000 characters a view. */
let t: TestApp;
beforeAll(async () => {
  t = await makeTestApp();
});
afterAll(async () => t.close());

const json = JSON.stringify(
  Array.from({ length: 110_000 }, (_, i) => ({ id: i, name: `item ${i}`, note: i % 7 === 0 ? 'é漢😀' : 'plain' })),
);

it('views a 5 MB one-line JSON to its end by column', { timeout: 600_000 }, async () => {
  expect(json.length).toBeGreaterThan(5_000_000);
  await fs.writeFile(path.join(t.root, 'min.json'), json);
  const send = (body: Record<string, unknown>) => t.request.post('/v1/compat/anthropic/text-editor').set('X-Session-Id', 's').send(body);
  const { text, pages } = await viewToEnd(send, 'min.json', 1);
  expect(text).toBe(json);
  expect(pages).toBeGreaterThanOrEqual(Math.ceil(json.length / 2000));
  // The column views of the one line made a full read: create may replace the file.
  const create = await send({ command: 'create', path: 'min.json', file_text: '[]' });
  expect(create.body).toEqual({ content: expect.stringContaining('min.json'), is_error: false });
});
