import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const PROBE = path.resolve('test/fixtures/first-use/probe.ts');

/**
 * What a sidecar nobody has used yet must not load (start-up time and idle memory, multiplied
 * by every sandbox): the MCP SDK, prom-client, @fastify/swagger and Swagger UI. Each loads at
 * the first request that needs it. Run in a process of its own, so no other test's imports
 * count, and every module loaded is seen through module hooks.
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
});
