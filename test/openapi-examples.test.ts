import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderOpenApi } from '../scripts/openapi-doc.js';
import { TOOL_EXAMPLES } from '../src/http/tool-examples.js';
import { makeTestApp } from './helpers.js';

/** The document a newcomer reads — its title, error codes and examples. */

type Media = {
  schema: { properties?: { error?: { properties?: { code?: { enum?: string[] } } } } };
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
};
type Operation = { requestBody?: { content: Record<string, Media> }; responses: Record<string, { content?: Record<string, Media> }> };

const examplesOf = (media: Media | undefined): unknown[] =>
  media === undefined ? [] : media.example !== undefined ? [media.example] : Object.values(media.examples ?? {}).map((e) => e.value);

async function operations(): Promise<Array<[string, Operation]>> {
  const doc = JSON.parse(await renderOpenApi()) as { paths: Record<string, Record<string, Operation>> };
  return Object.entries(doc.paths).flatMap(([url, item]) =>
    Object.entries(item).map(([method, op]) => [`${method} ${url}`, op] as [string, Operation]),
  );
}

describe('the OpenAPI document for a reader', () => {
  it('is titled "sidefile API", and so is the docs page', async () => {
    expect(JSON.parse(await renderOpenApi()).info.title).toBe('sidefile API');
    const t = await makeTestApp();
    const page = await t.app.inject({ method: 'GET', url: '/docs/' });
    expect(page.body).toContain('<title>sidefile API</title>');
    await t.close();
  });

  it('never shows 9007199254740991', async () => {
    expect(await renderOpenApi()).not.toContain('9007199254740991');
  });

  it('lists per route only the codes it can return, each with an example; no 401 or 403 on the health checks', async () => {
    for (const [name, op] of await operations()) {
      for (const [status, res] of Object.entries(op.responses)) {
        const media = res.content?.['application/json'];
        const codes = media?.schema.properties?.error?.properties?.code?.enum;
        if (!codes) continue;
        const shown = examplesOf(media).map((e) => (e as { error: { code: string } }).error.code);
        expect(shown, `${name} ${status}`).toEqual(codes);
      }
      if (/ \/(healthz|readyz)$/.test(name)) {
        expect(Object.keys(op.responses), name).not.toContain('401');
        expect(Object.keys(op.responses), name).not.toContain('403');
      } else {
        expect(op.responses['403']?.content?.['application/json']?.schema.properties?.error?.properties?.code?.enum, name).toContain(
          'ORIGIN_DENIED',
        );
      }
    }
    const read = Object.fromEntries(await operations())['post /v1/tools/read']!;
    expect(Object.keys(read.responses)).not.toContain('409');
  });

  it('gives every tool a request and a 200 example', async () => {
    for (const [name, op] of (await operations()).filter(([n]) => n.startsWith('post /v1/tools/'))) {
      expect(examplesOf(op.requestBody?.content['application/json']).length, name).toBeGreaterThan(0);
      expect(examplesOf(op.responses['200']?.content?.['application/json']).length, name).toBeGreaterThan(0);
    }
  });

  it('shows examples the tools really answer (replayed in order on a fresh workspace)', async () => {
    const t = await makeTestApp();
    await writeFile(path.join(t.root, 'app.py'), 'def greet():\n    return "hi"\n');
    const cell = (id: string, source: string[]) => ({ cell_type: 'code', execution_count: null, id, metadata: {}, outputs: [], source });
    await writeFile(
      path.join(t.root, 'analysis.ipynb'),
      JSON.stringify({
        cells: [cell('load', ['import pandas as pd\n', "df = pd.read_csv('data.csv')"]), cell('look', ['df.head()'])],
        metadata: {},
        nbformat: 4,
        nbformat_minor: 5,
      }),
    );
    const steps: Array<[string, string, number]> = [
      ['read', 'Read', 0],
      ['edit', 'Edit', 0],
      ['multi_edit', 'MultiEdit', 0],
      ['apply_patch', 'ApplyPatch', 0],
      ['write', 'Write', 0],
      ['read', 'Read', 1],
      ['notebook_edit', 'NotebookEdit', 0],
      ['notebook_edit', 'NotebookEdit', 1],
      ['notebook_edit', 'NotebookEdit', 2],
    ];
    for (const [slug, tool, i] of steps) {
      const ex = TOOL_EXAMPLES[tool]!;
      const res = await t.app.inject({
        method: 'POST',
        url: `/v1/tools/${slug}`,
        headers: { 'x-session-id': 'agent-1' },
        payload: ex.requests[i] as object,
      });
      expect(res.json(), `${tool} #${i}`).toEqual(ex.responses[i]);
    }
    await t.close();
  });
});
