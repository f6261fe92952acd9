import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WriteEvent } from '../src/tools/types.js';
import { call, listeningApp, mcpClient, type ListeningApp } from './support/mcp.js';

let t: ListeningApp;
let client: Client;
let lines: Array<Record<string, unknown>>;
beforeEach(async () => {
  lines = [];
  const stream = { write: (line: string) => void lines.push(JSON.parse(line)) };
  t = await listeningApp({}, { logger: { level: 'info', stream } });
  await fsp.writeFile(path.join(t.root, 'a.txt'), 'alpha\nbeta\n');
  client = await mcpClient(t.mcpUrl, { 'X-Session-Id': 'observed' });
});
afterEach(async () => {
  await client.close();
  await t.close();
});

const toolCalls = () => lines.filter((l) => l.event === 'tool_call');

describe('MCP calls are observed exactly as REST calls', () => {
  it('logs one tool_call telemetry line per call, as REST does, with transport "mcp"', async () => {
    await call(client, 'Read', { file_path: 'a.txt' });
    await call(client, 'Edit', { file_path: 'a.txt', old_string: 'nope', new_string: 'x' });
    await t.request.post('/v1/tools/read').set('X-Session-Id', 'observed').send({ file_path: 'a.txt', offset: 2 });
    const [read, failed, rest] = toolCalls();
    expect(toolCalls()).toHaveLength(3);
    expect(read).toMatchObject({
      tool: 'Read',
      session: 'observed',
      path: 'a.txt',
      outcome: 'ok',
      code: null,
      status: 200,
      transport: 'mcp',
      mcpEra: '2025-11-25',
    });
    expect(failed).toMatchObject({ tool: 'Edit', outcome: 'error', code: 'STRING_NOT_FOUND', status: 422, transport: 'mcp' });
    expect(rest).toMatchObject({ tool: 'Read', transport: 'rest' });
    expect(typeof read!.reqId).toBe('string');
    // Same fields as the REST line, plus the transport and the protocol era.
    const keys = (l: Record<string, unknown>) =>
      Object.keys(l)
        .filter((k) => !['time', 'msg', 'reqId', 'transport', 'mcpEra'].includes(k))
        .sort();
    expect(keys(read!)).toEqual(keys(rest!));
    expect(JSON.stringify(lines)).not.toContain('alpha');
  });

  it('counts MCP calls in /metrics by tool and outcome', async () => {
    await call(client, 'Read', { file_path: 'a.txt' });
    await call(client, 'Read', { file_path: 'missing.txt' });
    const metrics = (await t.request.get('/metrics')).text;
    expect(metrics).toMatch(/sidefile_tool_calls_total\{tool="Read",outcome="ok",code=""\} 1/);
    expect(metrics).toMatch(/sidefile_tool_calls_total\{tool="Read",outcome="error",code="FILE_NOT_FOUND"\} 1/);
  });

  it('records history and a change event for an MCP write, named as REST names them', async () => {
    const events: WriteEvent[] = [];
    t.app.services.writeListeners.push((e) => events.push(e));
    await call(client, 'Read', { file_path: 'a.txt' });
    const edited = await call(client, 'Edit', { file_path: 'a.txt', old_string: 'beta', new_string: 'BETA' });
    expect(edited.isError).toBeFalsy();
    const history = await t.request.get('/v1/history').query({ file_path: 'a.txt' });
    expect(history.body.versions).toHaveLength(1);
    expect(history.body.versions[0]).toMatchObject({ session: 'observed', tool: 'Edit', size: 11 });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ tool: 'Edit', session: 'observed', type: 'update', additions: 1, deletions: 1 });
    expect(events[0]!.version).toBe(history.body.versions[0].version);
  });
});
