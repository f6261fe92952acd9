import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { afterEach, describe, expect, it } from 'vitest';
import type { ResolvedPath, ToolDefinition } from '../src/tools/types.js';
import { probeTool } from './fixtures/probe-tool.js';
import { makeTestApp, type TestApp } from './helpers.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** A stand-in write tool: takes the file's lock, reports bytes, tells the after-write hooks. */
const lockedWrite: ToolDefinition = {
  name: 'Write',
  slug: 'fake_write',
  title: 'Fake write',
  description: 'Test-only write.',
  input: z.strictObject({ file_path: z.string(), content: z.string() }),
  result: z.object({ ok: z.boolean() }),
  access: 'write',
  target: { field: 'file_path', kind: 'file' },
  run: async (input, ctx, target: ResolvedPath) => {
    const release = await ctx.locks.acquire(target.real, 1000);
    release();
    ctx.afterWrite({ tool: 'Write', session: ctx.session, path: target, type: 'create', additions: 1, deletions: 0, version: null });
    return { result: { ok: true }, text: 'ok', metrics: { bytes: Buffer.byteLength(String(input.content)) } };
  },
};

async function scrape(app: TestApp, token?: string): Promise<string> {
  const req = app.request.get('/metrics');
  if (token) req.set('Authorization', `Bearer ${token}`);
  const res = await req;
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text;
}

function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelText = line.slice(name.length).split(' ')[0] ?? '';
    if (wanted.every((w) => labelText.includes(w))) return Number(line.split(' ').pop());
  }
  return undefined;
}

describe('GET /metrics', () => {
  it('is behind auth like every route', async () => {
    t = await makeTestApp({ config: { token: 'tok' } });
    const res = await t.request.get('/metrics');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
    expect(await scrape(t, 'tok')).toContain('sidefile_tool_calls_total');
  });

  it('counts tool calls by tool, outcome and error code, with latency and bytes', async () => {
    t = await makeTestApp({ build: { tools: [probeTool('read'), lockedWrite] } });
    await t.request.post('/v1/tools/probe_read').send({ file_path: 'a.txt' }).expect(200);
    await t.request.post('/v1/tools/probe_read').send({ file_path: '../outside' }).expect(403);
    await t.request.post('/v1/tools/fake_write').send({ file_path: 'b.txt', content: 'héllo' }).expect(200);
    const text = await scrape(t);
    expect(sample(text, 'sidefile_tool_calls_total', { tool: 'ProbeRead', outcome: 'ok', code: '' })).toBe(1);
    expect(sample(text, 'sidefile_tool_calls_total', { tool: 'ProbeRead', outcome: 'error', code: 'PATH_OUTSIDE_WORKSPACE' })).toBe(1);
    expect(sample(text, 'sidefile_tool_calls_total', { tool: 'Write', outcome: 'ok' })).toBe(1);
    expect(sample(text, 'sidefile_tool_duration_seconds_count', { tool: 'ProbeRead', outcome: 'ok' })).toBe(1);
    expect(sample(text, 'sidefile_bytes_written_total', { tool: 'Write' })).toBe(6);
    expect(sample(text, 'sidefile_lock_wait_seconds_count')).toBe(1);
    expect(sample(text, 'sidefile_file_changes_total', { tool: 'Write', type: 'create' })).toBe(1);
  });

  it('reports sessions, read-state entries, history and open event streams as gauges', async () => {
    t = await makeTestApp();
    const text = await scrape(t);
    for (const name of [
      'sidefile_sessions_active',
      'sidefile_read_state_entries',
      'sidefile_locks_held',
      'sidefile_locks_waiting',
      'sidefile_history_versions',
      'sidefile_history_bytes',
      'sidefile_event_clients',
      'sidefile_event_clients_dropped_total',
    ]) {
      expect(sample(text, name), name).toBe(0);
    }
    expect(text).toContain('process_cpu_user_seconds_total');
  });

  it('keeps each app in its own registry', async () => {
    t = await makeTestApp({ build: { tools: [probeTool('read')] } });
    const other = await makeTestApp({ build: { tools: [probeTool('read')] } });
    try {
      await t.request.post('/v1/tools/probe_read').send({ file_path: 'a.txt' }).expect(200);
      expect(sample(await scrape(other), 'sidefile_tool_calls_total', { tool: 'ProbeRead' })).toBeUndefined();
    } finally {
      await other.close();
    }
  });
});

describe('GET /metrics after real tool calls', () => {
  it('counts Write, a refused Edit and a restore; reports read state and history', async () => {
    t = await makeTestApp();
    const created = await t.request.post('/v1/tools/write').set('X-Session-Id', 'm1').send({ file_path: 'a.txt', content: 'hello\n' });
    expect(created.status).toBe(200);
    const afterWrite = await scrape(t);
    expect(sample(afterWrite, 'sidefile_sessions_active')).toBe(1);
    expect(sample(afterWrite, 'sidefile_read_state_entries')).toBe(1);
    const refused = await t.request
      .post('/v1/tools/edit')
      .set('X-Session-Id', 'm2')
      .send({ file_path: 'a.txt', old_string: 'hello', new_string: 'bye' });
    expect(refused.status).toBe(409);
    const versions = (await t.request.get('/v1/history').query({ file_path: 'a.txt' })).body.versions;
    const restored = await t.request
      .post('/v1/history/restore')
      .set('X-Session-Id', 'm1')
      .send({ file_path: 'a.txt', version: versions[0].version });
    expect(restored.status).toBe(200);
    const text = await scrape(t);
    expect(sample(text, 'sidefile_tool_calls_total', { tool: 'Write', outcome: 'ok', code: '' })).toBe(1);
    expect(sample(text, 'sidefile_tool_calls_total', { tool: 'Edit', outcome: 'error', code: 'FILE_NOT_READ' })).toBe(1);
    expect(sample(text, 'sidefile_tool_calls_total', { tool: 'Restore', outcome: 'ok', code: '' })).toBe(1);
    expect(sample(text, 'sidefile_bytes_written_total', { tool: 'Write' })).toBe(6);
    expect(sample(text, 'sidefile_file_changes_total', { tool: 'Write', type: 'create' })).toBe(1);
    expect(sample(text, 'sidefile_file_changes_total', { tool: 'Restore', type: 'delete' })).toBe(1);
    expect(sample(text, 'sidefile_lock_wait_seconds_count')).toBe(3);
    expect(sample(text, 'sidefile_history_versions')).toBe(2);
    expect(sample(text, 'sidefile_tool_duration_seconds_count', { tool: 'Edit', outcome: 'error' })).toBe(1);
  });

  it('counts bytes read by Read and the read-state entries it leaves', async () => {
    t = await makeTestApp();
    await writeFile(path.join(t.root, 'r.txt'), 'abc\ndef\n');
    for (const session of ['r1', 'r2']) {
      const res = await t.request.post('/v1/tools/read').set('X-Session-Id', session).send({ file_path: 'r.txt' });
      expect(res.status).toBe(200);
    }
    const missing = await t.request.post('/v1/tools/read').send({ file_path: 'nope.txt' });
    expect(missing.status).toBe(404);
    const text = await scrape(t);
    expect(sample(text, 'sidefile_tool_calls_total', { tool: 'Read', outcome: 'ok', code: '' })).toBe(2);
    expect(sample(text, 'sidefile_tool_calls_total', { tool: 'Read', outcome: 'error', code: 'FILE_NOT_FOUND' })).toBe(1);
    expect(sample(text, 'sidefile_bytes_read_total', { tool: 'Read' })).toBeGreaterThanOrEqual(16);
    expect(sample(text, 'sidefile_sessions_active')).toBe(2);
    expect(sample(text, 'sidefile_read_state_entries')).toBe(2);
    await t.request.delete('/v1/sessions/r1').expect(200);
    expect(sample(await scrape(t), 'sidefile_read_state_entries')).toBe(1);
  });
});
