import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { makeTestApp } from './helpers.js';

const PROBE = path.resolve('test/fixtures/first-use/probe.ts');

/**
 * What a sidecar nobody has used yet must not load (start-up time and idle memory, multiplied
 * by every sandbox): the MCP SDK, prom-client, @fastify/swagger, Swagger UI and ws (NotebookRun's
 * kernel channels). Each loads at the first request that needs it. Run in a process of its own,
 * so no other test's imports count, and every module loaded is seen through module hooks.
 */
describe('parts loaded on first use', () => {
  it('loads none of them at start-up, and each at its first request', async () => {
    const base = await mkdtemp(path.join(os.tmpdir(), 'sidefile-first-use-'));
    try {
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', PROBE, base], { timeout: 60_000 });
      const report = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
      expect(report.status).toEqual({ tools: 200, metrics: 200, mcp: 200, openapi: 200, docs: 200 });
      expect(report.started).toEqual([]);
      expect(report.tools).toEqual([]);
      expect(report.metrics).toEqual(['promClient']);
      expect(report.mcp).toEqual(['mcp', 'promClient']);
      expect(report.openapi).toEqual(['mcp', 'promClient', 'swagger', 'swaggerUi']);
      expect(report.docs).toEqual(['mcp', 'promClient', 'swagger', 'swaggerUi']);
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  }, 90_000);

  it('answers concurrent first requests alike (they share one load)', async () => {
    const t = await makeTestApp();
    try {
      const initialize = (id: number): string =>
        JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'first', version: '1' } },
        });
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const answers = await Promise.all([
        ...[1, 2, 3].map((id) => t.app.inject({ method: 'POST', url: '/mcp', headers, payload: initialize(id) })),
        ...[1, 2, 3].map(() => t.app.inject({ method: 'GET', url: '/metrics' })),
        ...[1, 2, 3].map(() => t.app.inject({ method: 'GET', url: '/openapi.json' })),
      ]);
      expect(answers.map((a) => a.statusCode)).toEqual(Array(9).fill(200));
      const sessions = answers.slice(0, 3).map((a) => a.headers['mcp-session-id']);
      expect(new Set(sessions).size).toBe(3);
      expect(answers.slice(0, 3).map((a) => (JSON.parse(a.body) as { id: number }).id)).toEqual([1, 2, 3]);
      expect(answers[4]!.body).toContain('# TYPE sidefile_tool_calls_total counter');
      expect(answers[7]!.body).toBe(answers[6]!.body);
      expect(JSON.parse(answers[6]!.body).info.title).toBe('sidefile API');
    } finally {
      await t.close();
    }
  });
});
