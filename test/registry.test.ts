import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createReadTool } from '../src/tools/read/index.js';
import { LineIndexCache } from '../src/tools/read/line-index.js';
import { createTools } from '../src/tools/registry.js';
import { WRITE_TOOL_NAMES, type ToolDefinition } from '../src/tools/types.js';
import { wordCountTool } from './fixtures/tools/word-count/index.js';
import { makeTestApp, type TestApp } from './helpers.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const SPEC = path.resolve(process.cwd(), '../shared/SPEC.md');

/** The contract's history `tool` names, or null (with one notice line) when SPEC is absent. */
function specHistoryNames(): string[] | null {
  let spec: string;
  try {
    spec = readFileSync(SPEC, 'utf8');
  } catch {
    console.log(`notice: ${SPEC} is absent; the SPEC comparison of tool names is skipped`);
    return null;
  }
  const line = /`tool` one of (.*?);/.exec(spec)?.[1] ?? '';
  return [...line.matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1]!);
}

describe('the registry is the one list', () => {
  it('history and event tool names are the contract’s, and every write tool is among them', async () => {
    t = await makeTestApp();
    const tools = createTools(t.app.services);
    const spec = specHistoryNames();
    if (spec) expect([...WRITE_TOOL_NAMES]).toEqual(spec);
    for (const tool of tools.filter((x) => x.access === 'write')) expect(WRITE_TOOL_NAMES).toContain(tool.name);
    expect(new Set(tools.map((x) => x.name)).size).toBe(tools.length);
    expect(new Set(tools.map((x) => x.slug)).size).toBe(tools.length);
    const listed = (await t.request.get('/v1/tools')).body.tools;
    // NotebookRun is listed only when a Jupyter Server is configured (its route always exists).
    expect(listed.map((x: { name: string }) => x.name)).toEqual(tools.filter((x) => x.listed !== false).map((x) => x.name));
    expect(tools.find((x) => x.name === 'NotebookRun')?.listed).toBe(false);
    for (const item of listed) expect(item).toMatchObject({ method: 'POST', title: expect.stringMatching(/\S/) });
  });

  it('builds fresh tools per app: two apps share no Read line index', async () => {
    t = await makeTestApp();
    const other = await makeTestApp();
    try {
      expect(t.app.tools.find((x) => x.name === 'Read')).not.toBe(other.app.tools.find((x) => x.name === 'Read'));
    } finally {
      await other.close();
    }
  });

  it('closes each tool with the app: Read stops its background line indexes', async () => {
    const held: Array<() => void> = [];
    const cache = new LineIndexCache((build) => held.push(build));
    let closed = 0;
    const closing: ToolDefinition = { ...wordCountTool, close: () => void closed++ };
    t = await makeTestApp({ build: { tools: [createReadTool({ indexes: cache, hugeFileBytes: 4096 }), closing] } });
    await writeFile(path.join(t.root, 'big.log'), 'row\n'.repeat(5000));
    expect((await t.request.post('/v1/tools/read').send({ file_path: 'big.log', limit: 2 })).status).toBe(200);
    expect(cache.size()).toBe(1);
    await t.close();
    t = undefined;
    expect(cache.size()).toBe(0);
    expect(closed).toBe(1);
  });
});

describe('adding a read-only tool is one folder and one line in a tool list', () => {
  it('serves it with its route, listing, OpenAPI operation, telemetry and metrics', async () => {
    t = await makeTestApp({ build: { tools: (services) => [...createTools(services), wordCountTool] } });
    await writeFile(path.join(t.root, 'w.txt'), 'one two three\n');
    const res = await t.request.post('/v1/tools/word_count').send({ file_path: 'w.txt', min_length: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: { file_path: 'w.txt', words: 3 }, text: 'w.txt: 3 words' });
    const denied = await t.request.post('/v1/tools/word_count').send({ file_path: '../w.txt' });
    expect(denied.body.error.code).toBe('PATH_OUTSIDE_WORKSPACE');
    const listed = (await t.request.get('/v1/tools')).body.tools.find((x: { name: string }) => x.name === 'WordCount');
    expect(listed).toMatchObject({ title: 'Count words', method: 'POST', endpoint: '/v1/tools/word_count' });
    const doc = (await t.request.get('/openapi.json')).body;
    expect(doc.paths['/v1/tools/word_count'].post).toMatchObject({ operationId: 'toolWordCount', tags: ['tools'] });
    expect(doc.tags.find((x: { name: string }) => x.name === 'tools').description).toContain('WordCount');
    const metrics = (await t.request.get('/metrics')).text;
    expect(metrics).toContain('sidefile_tool_calls_total{tool="WordCount",outcome="ok",code=""} 1');
    expect(metrics).toContain('sidefile_bytes_read_total{tool="WordCount"} 14');
  });
});
