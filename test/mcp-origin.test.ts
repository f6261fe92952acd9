/**
 * On /mcp: a web page the user has open can reach loopback, so without a token a
 * foreign Origin, `Origin: null` and a foreign Host (DNS rebinding) must not reach the MCP
 * server — not to initialize, not to call a write tool, not to open the notification stream.
 * The attack runs as many concurrent requests; nothing may change on disk, and no MCP session
 * may be opened.
 */
import { promises as fsp } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { initializeBody, listeningApp, mcpClient, type ListeningApp } from './support/mcp.js';

let t: ListeningApp;
beforeEach(async () => {
  t = await listeningApp();
  await fsp.writeFile(path.join(t.root, 'a.txt'), 'alpha\n');
});
afterEach(async () => {
  await t.close();
});

/** node:http, so the Host header can be forged (fetch does not let it be set). */
function send(method: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: Number(t.mcpUrl.port), path: '/mcp', method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const writeCall = JSON.stringify({
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name: 'Write', arguments: { file_path: 'pwned.txt', content: 'x' } },
});

describe('/mcp under the browser and network rules', () => {
  it('refuses foreign origins and rebound hosts with 403 ORIGIN_DENIED, concurrently, changing nothing', async () => {
    const attacks: Array<[string, Record<string, string>, string | undefined]> = [];
    for (let i = 0; i < 20; i++) {
      attacks.push(['POST', { ...JSON_HEADERS, origin: `http://evil${i}.example` }, initializeBody('2025-11-25', i)]);
      attacks.push(['POST', { ...JSON_HEADERS, origin: 'null' }, writeCall]);
      attacks.push(['POST', { ...JSON_HEADERS, host: `rebound${i}.example:${t.mcpUrl.port}` }, initializeBody('2025-06-18', i)]);
      attacks.push(['POST', { ...JSON_HEADERS, origin: 'http://localhost:1', 'mcp-session-id': 'guess' }, writeCall]);
      attacks.push(['GET', { accept: 'text/event-stream', origin: 'https://evil.example' }, undefined]);
    }
    const answers = await Promise.all(attacks.map(([method, headers, body]) => send(method, headers, body)));
    for (const answer of answers) {
      expect(answer.status).toBe(403);
      expect(JSON.parse(answer.body).error.code).toBe('ORIGIN_DENIED');
    }
    expect(await fsp.readdir(t.root)).toEqual(['a.txt']);
    expect(t.app.services.readState.stats().sessions).toBe(0);
  });

  it('refuses a text/plain body (what a page sends without a preflight) with 400 INVALID_INPUT', async () => {
    const res = await send(
      'POST',
      { 'content-type': 'text/plain', accept: 'application/json, text/event-stream' },
      initializeBody('2025-11-25'),
    );
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error.code).toBe('INVALID_INPUT');
  });

  it('serves its own origin (a page served by sidefile itself)', async () => {
    const client = await mcpClient(t.mcpUrl, { Origin: `http://127.0.0.1:${t.mcpUrl.port}` });
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    await client.close();
  });
});
