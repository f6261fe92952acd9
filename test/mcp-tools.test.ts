import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, listeningApp, mcpClient, type ListeningApp } from './support/mcp.js';
import { modernClient } from './support/mcp-modern.js';

let t: ListeningApp;
let client: Client;
beforeAll(async () => {
  t = await listeningApp();
  client = await mcpClient(t.mcpUrl);
});
afterAll(async () => {
  await client.close();
  await t.close();
});

const READ_ONLY = ['Read', 'Glob', 'Grep', 'LS'];
const WRITERS = ['Edit', 'MultiEdit', 'Write', 'NotebookEdit', 'ApplyPatch'];

describe('MCP tools/list', () => {
  it('lists every registry tool with the description and input schema of GET /v1/tools', async () => {
    const rest = await t.request.get('/v1/tools');
    expect(rest.status).toBe(200);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(t.app.tools.map((tool) => tool.name));
    expect(tools.map((tool) => tool.name)).toEqual(rest.body.tools.map((tool: { name: string }) => tool.name));
    for (const [i, tool] of tools.entries()) {
      const listed = rest.body.tools[i];
      expect(tool.description, tool.name).toBe(listed.description);
      expect(tool.inputSchema, tool.name).toEqual(listed.input_schema);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.title, tool.name).toBe(listed.title);
      expect(tool.title!.length, tool.name).toBeGreaterThan(0);
    }
  });

  it('gives the annotations: read-only for the looking tools, destructive for writers', async () => {
    const { tools } = await client.listTools();
    for (const tool of tools) {
      expect([...READ_ONLY, ...WRITERS], `${tool.name} has no expected annotations here`).toContain(tool.name);
      const readOnly = READ_ONLY.includes(tool.name);
      expect(tool.annotations, tool.name).toEqual({
        title: tool.title,
        readOnlyHint: readOnly,
        destructiveHint: !readOnly,
        idempotentHint: tool.name === 'Write',
        openWorldHint: false,
      });
    }
  });

  it('answers an unknown tool with JSON-RPC error -32602, not a tool result', async () => {
    const err = await client.callTool({ name: 'Delete', arguments: { file_path: 'a.txt' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(-32602);
    expect((err as McpError).message).toContain('Unknown tool: Delete');
  });
});

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('\0\0\0\rIHDR rest of a png')]);
const NOTEBOOK =
  JSON.stringify(
    {
      cells: [{ cell_type: 'code', id: 'c1', metadata: {}, source: ['x = 1\n'], outputs: [], execution_count: null }],
      metadata: { kernelspec: { language: 'python', name: 'python3' } },
      nbformat: 4,
      nbformat_minor: 5,
    },
    null,
    1,
  ) + '\n';

interface Scenario {
  name: string;
  files: Record<string, string | Buffer>;
  /** Files the session reads (with Read, over the same transport) before the call; or Read's arguments. */
  read?: Array<string | { file_path: string; offset: number; limit: number }>;
  tool: string;
  args: Record<string, unknown>;
}

const SCENARIOS: Scenario[] = [
  { name: 'Read of a text file', files: { 'a.txt': 'alpha\nbeta\ngamma\n' }, tool: 'Read', args: { file_path: 'a.txt' } },
  { name: 'Read of a page', files: { 'a.txt': 'alpha\nbeta\ngamma\n' }, tool: 'Read', args: { file_path: 'a.txt', offset: 2, limit: 1 } },
  {
    name: 'Read of a file over 256 KiB (a partial view)',
    files: { 'big.log': Array.from({ length: 3000 }, (_, i) => `entry ${i + 1} ${'z'.repeat(90)}`).join('\n') },
    tool: 'Read',
    args: { file_path: 'big.log' },
  },
  {
    name: 'Read of a long line by column',
    files: { 'min.json': `[${'"é漢😀",'.repeat(1500)}0]` },
    tool: 'Read',
    args: { file_path: 'min.json', offset: 1, limit: 1, column: 2001 },
  },
  {
    name: 'Read with column and a limit over 1',
    files: { 'min.json': '[1,2,3]' },
    tool: 'Read',
    args: { file_path: 'min.json', offset: 1, limit: 2, column: 3 },
  },
  { name: 'Read of an image', files: { 'p.png': PNG }, tool: 'Read', args: { file_path: 'p.png' } },
  { name: 'Read of a notebook', files: { 'n.ipynb': NOTEBOOK }, tool: 'Read', args: { file_path: 'n.ipynb' } },
  {
    name: 'Read with strict-mode nulls for the optionals',
    files: { 'a.txt': 'alpha\nbeta\n' },
    tool: 'Read',
    args: { file_path: 'a.txt', offset: null, limit: null },
  },
  { name: 'Read of a missing file', files: {}, tool: 'Read', args: { file_path: 'nope.txt' } },
  { name: 'Read outside the workspace', files: {}, tool: 'Read', args: { file_path: '../outside.txt' } },
  { name: 'Read with an unknown field', files: { 'a.txt': 'a\n' }, tool: 'Read', args: { file_path: 'a.txt', offest: 2 } },
  {
    name: 'Edit',
    files: { 'a.txt': 'alpha\nbeta\n' },
    read: ['a.txt'],
    tool: 'Edit',
    args: { file_path: 'a.txt', old_string: 'beta', new_string: 'BETA' },
  },
  // Past OFF_LOOP_BYTES: the worker's patch (a whole-region hunk) reaches MCP as REST sends it.
  {
    name: 'Edit replace_all in a 3 MB file (on the worker thread)',
    files: { 'big.txt': 'ab "q" \\n é\n'.repeat(250_000) },
    read: [{ file_path: 'big.txt', offset: 1, limit: 1 }],
    tool: 'Edit',
    args: { file_path: 'big.txt', old_string: 'ab', new_string: 'xy', replace_all: true },
  },
  {
    name: 'Edit of an unread file',
    files: { 'a.txt': 'alpha\n' },
    tool: 'Edit',
    args: { file_path: 'a.txt', old_string: 'alpha', new_string: 'x' },
  },
  {
    name: 'Edit of text not there',
    files: { 'a.txt': 'alpha\n' },
    read: ['a.txt'],
    tool: 'Edit',
    args: { file_path: 'a.txt', old_string: 'omega', new_string: 'x' },
  },
  {
    name: 'Edit of repeated text',
    files: { 'a.txt': 'x\nx\n' },
    read: ['a.txt'],
    tool: 'Edit',
    args: { file_path: 'a.txt', old_string: 'x', new_string: 'y' },
  },
  {
    name: 'Edit with a number for a string',
    files: { 'a.txt': 'x\n' },
    read: ['a.txt'],
    tool: 'Edit',
    args: { file_path: 'a.txt', old_string: 1, new_string: 'y' },
  },
  { name: 'Write of a new file', files: {}, tool: 'Write', args: { file_path: 'dir/new.txt', content: 'fresh\n' } },
  {
    name: 'Write over a read file',
    files: { 'a.txt': 'old\r\n' },
    read: ['a.txt'],
    tool: 'Write',
    args: { file_path: 'a.txt', content: 'new\nlines\n' },
  },
  { name: 'Write over an unread file', files: { 'a.txt': 'old\n' }, tool: 'Write', args: { file_path: 'a.txt', content: 'new\n' } },
  {
    name: 'NotebookEdit of a cell',
    files: { 'n.ipynb': NOTEBOOK },
    read: ['n.ipynb'],
    tool: 'NotebookEdit',
    args: { notebook_path: 'n.ipynb', cell_id: 'c1', new_source: 'x = 2\n' },
  },
  {
    name: 'ApplyPatch',
    files: { 'a.txt': 'a\nb\n' },
    read: ['a.txt'],
    tool: 'ApplyPatch',
    args: { patch: '*** Begin Patch\n*** Update File: a.txt\n@@\n a\n-b\n+B\n*** Add File: new/c.txt\n+c\n*** End Patch\n' },
  },
  {
    name: 'ApplyPatch with context not in the file',
    files: { 'a.txt': 'a\nb\n' },
    read: ['a.txt'],
    tool: 'ApplyPatch',
    args: { patch: '*** Begin Patch\n*** Update File: a.txt\n@@\n zzz\n-b\n+B\n*** End Patch\n' },
  },
];

async function putFiles(files: Scenario['files']): Promise<void> {
  for (const entry of await fsp.readdir(t.root)) await fsp.rm(path.join(t.root, entry), { recursive: true, force: true });
  for (const [rel, bytes] of Object.entries(files)) {
    await fsp.mkdir(path.dirname(path.join(t.root, rel)), { recursive: true });
    await fsp.writeFile(path.join(t.root, rel), bytes);
  }
}

async function snapshot(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await fsp.readdir(t.root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile())
      out[path.relative(t.root, path.join(entry.parentPath, entry.name))] = (
        await fsp.readFile(path.join(entry.parentPath, entry.name))
      ).toString('base64');
  }
  return out;
}

function slugOf(name: string): string {
  return t.app.tools.find((tool) => tool.name === name)!.slug;
}

describe('MCP tools/call answers as REST does for the same request', () => {
  for (const [i, s] of SCENARIOS.entries()) {
    it(`${s.name}`, async () => {
      await putFiles(s.files);
      const restSession = `rest-${i}`;
      const reads = (s.read ?? []).map((r) => (typeof r === 'string' ? { file_path: r } : r));
      for (const args of reads) {
        expect((await t.request.post('/v1/tools/read').set('X-Session-Id', restSession).send(args)).status).toBe(200);
      }
      const rest = await t.request
        .post(`/v1/tools/${slugOf(s.tool)}`)
        .set('X-Session-Id', restSession)
        .send(s.args);
      const restDisk = await snapshot();

      // The same call in each era: a 2025 MCP session (1.x client), and 2026-07-28 stateless
      // in its own X-Session-Id (2.x client).
      const eras = [() => mcpClient(t.mcpUrl), () => modernClient(t.mcpUrl, { 'X-Session-Id': `modern-${i}` })];
      for (const [era, connect] of eras.entries()) {
        await putFiles(s.files);
        const session = (await connect()) as Client;
        try {
          for (const args of reads) expect((await call(session, 'Read', args)).isError, `era ${era}`).toBeFalsy();
          const mcp = await call(session, s.tool, s.args);
          if (rest.status === 200) {
            expect(mcp.isError, `era ${era}`).toBeFalsy();
            expect(mcp.structuredContent).toEqual(rest.body.result);
            expect(mcp.content[0]).toEqual({ type: 'text', text: rest.body.text });
          } else {
            expect(mcp.isError, `era ${era}`).toBe(true);
            expect(mcp.structuredContent).toEqual(rest.body);
            expect(mcp.content).toEqual([{ type: 'text', text: rest.body.error.message }]);
          }
          expect(await snapshot()).toEqual(restDisk);
        } finally {
          await session.close();
        }
      }
    });
  }

  it('returns a Read of an image also as image content', async () => {
    await putFiles({ 'p.png': PNG });
    const mcp = await call(client, 'Read', { file_path: 'p.png' });
    expect(mcp.content).toHaveLength(2);
    expect(mcp.content[1]).toEqual({ type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' });
  });

  it('covers a failing case and a succeeding case of every write tool it knows', () => {
    for (const tool of ['Edit', 'Write', 'NotebookEdit', 'ApplyPatch']) {
      expect(SCENARIOS.filter((s) => s.tool === tool).length, tool).toBeGreaterThanOrEqual(1);
    }
  });
});
