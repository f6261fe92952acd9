import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningApp, type ListeningApp } from './support/mcp.js';
import { modernClient } from './support/mcp-modern.js';

/** docs/mcp.md's code blocks, by the `### Host` section they sit in. */
function snippets(): Map<string, Array<{ lang: string; code: string }>> {
  const doc = readFileSync('docs/mcp.md', 'utf8');
  const out = new Map<string, Array<{ lang: string; code: string }>>();
  let section = '';
  for (const part of doc.split(/^(### .+)$/m)) {
    if (part.startsWith('### ')) section = part.slice(4).trim();
    else
      for (const m of part.matchAll(/```(\w+)\n([\s\S]*?)```/g))
        out.set(section, [...(out.get(section) ?? []), { lang: m[1]!, code: m[2]! }]);
  }
  return out;
}

const DEFAULT_URL = 'http://127.0.0.1:8080/mcp';
const TOKEN = 'docs-token-123';
const blocks = snippets();
const json = (host: string): Record<string, any> => JSON.parse(blocks.get(host)!.find((b) => b.lang === 'json')!.code);

let t: ListeningApp;
beforeAll(async () => {
  t = await listeningApp({ token: TOKEN });
});
afterAll(async () => {
  await t.close();
});

/** Connects the SDK client with the URL and headers a snippet gives, pointed at the test server. */
async function connects(url: string, headers: Record<string, string>): Promise<string[]> {
  const target = new URL(url);
  target.port = t.mcpUrl.port;
  const client = new Client({ name: 'docs', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(target, { requestInit: { headers } }));
  const { tools } = await client.listTools();
  await client.close();
  return tools.map((tool) => tool.name);
}

/** The same with the 2.x SDK client pinned to 2026-07-28 (stateless, what Claude Code speaks). */
async function connectsModern(url: string, headers: Record<string, string>): Promise<string[]> {
  const target = new URL(url);
  target.port = t.mcpUrl.port;
  const client = await modernClient(target, headers);
  const { tools } = await client.listTools();
  await client.close();
  return tools.map((tool) => tool.name);
}

describe('docs/mcp.md host snippets', () => {
  it('has a snippet for Claude Code, Claude Desktop, Cursor and VS Code', () => {
    expect([...blocks.keys()].filter((k) => k)).toEqual(
      expect.arrayContaining(['Claude Code', 'Codex', 'Claude Desktop', 'Cursor', 'VS Code']),
    );
  });

  it('Claude Code: `claude mcp add --transport http` with the bearer header, and a .mcp.json', async () => {
    const command = blocks
      .get('Claude Code')!
      .find((b) => b.lang === 'sh')!
      .code.trim();
    const m =
      /^claude mcp add --transport http (\S+) (\S+) --header "Authorization: Bearer \$SIDEFILE_TOKEN" --header "X-Session-Id: \$SIDEFILE_SESSION"$/.exec(
        command,
      );
    expect(m, command).not.toBeNull();
    expect(m![2]).toBe(DEFAULT_URL);
    const config = json('Claude Code');
    expect(Object.keys(config)).toEqual(['mcpServers']);
    const server = config.mcpServers.sidefile;
    expect(Object.keys(server).sort()).toEqual(['headers', 'type', 'url']);
    expect(server).toEqual({
      type: 'http',
      url: DEFAULT_URL,
      headers: { Authorization: 'Bearer ${SIDEFILE_TOKEN}', 'X-Session-Id': '${SIDEFILE_SESSION:-claude}' },
    });
    const headers = { Authorization: `Bearer ${TOKEN}`, 'X-Session-Id': 'claude' };
    expect(await connectsModern(server.url, headers)).toContain('Edit');
    expect(await connects(server.url, headers)).toContain('Edit');
  });

  it('Codex: a streamable HTTP server with the token from the environment', async () => {
    const toml = blocks
      .get('Codex')!
      .find((b) => b.lang === 'toml')!
      .code.trim()
      .split('\n');
    expect(toml).toEqual(['[mcp_servers.sidefile]', `url = "${DEFAULT_URL}"`, 'bearer_token_env_var = "SIDEFILE_TOKEN"']);
    expect(await connects(DEFAULT_URL, { Authorization: `Bearer ${TOKEN}` })).toContain('Read');
  });

  it('Claude Desktop: a stdio entry running mcp-remote with the header from env', async () => {
    const config = json('Claude Desktop');
    const server = config.mcpServers.sidefile;
    expect(Object.keys(server).sort()).toEqual(['args', 'command', 'env']);
    expect(server.command).toBe('npx');
    expect(server.args.slice(0, 3)).toEqual(['-y', 'mcp-remote', DEFAULT_URL]);
    const header = server.args[server.args.indexOf('--header') + 1] as string;
    const [name, value] = header.split(':');
    expect(name).toBe('Authorization');
    const variable = /^\$\{(\w+)\}$/.exec(value!)![1]!;
    expect(server.env[variable]).toMatch(/^Bearer /);
    expect(await connects(server.args[2], { Authorization: `Bearer ${TOKEN}` })).toContain('Read');
  });

  it('Cursor: mcpServers with url and headers', async () => {
    const server = json('Cursor').mcpServers.sidefile;
    expect(Object.keys(server).sort()).toEqual(['headers', 'url']);
    expect(server.url).toBe(DEFAULT_URL);
    expect(server.headers).toEqual({ Authorization: 'Bearer ${env:SIDEFILE_TOKEN}', 'X-Session-Id': '${env:SIDEFILE_SESSION}' });
    expect(await connects(server.url, { Authorization: `Bearer ${TOKEN}`, 'X-Session-Id': 'cursor-agent' })).toContain('Write');
  });

  it('VS Code: servers with type http, and the token from a declared password input', async () => {
    const config = json('VS Code');
    expect(Object.keys(config).sort()).toEqual(['inputs', 'servers']);
    const server = config.servers.sidefile;
    expect(Object.keys(server).sort()).toEqual(['headers', 'type', 'url']);
    expect(server.type).toBe('http');
    expect(server.headers['X-Session-Id']).toBe('vscode-${workspaceFolderBasename}');
    const id = /^Bearer \$\{input:([\w-]+)\}$/.exec(server.headers.Authorization)![1];
    const input = config.inputs.find((i: { id: string }) => i.id === id);
    expect(input).toMatchObject({ type: 'promptString', password: true });
    expect(typeof input.description).toBe('string');
    expect(await connects(server.url, { Authorization: `Bearer ${TOKEN}`, 'X-Session-Id': 'vscode-project' })).toContain('NotebookEdit');
  });
});
