import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { callTool } from '../src/tools/call-tool.js';
import type { ResolvedPath, TargetKind, ToolCallEvent, ToolDefinition } from '../src/tools/types.js';
import { makeTestApp, readFully, type TestApp } from './helpers.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

/** A test-only tool with a folder-like target: reports what callTool resolved. */
function targetProbe(slug: string, kind: TargetKind): ToolDefinition {
  return {
    name: `Probe_${slug}`,
    slug,
    title: 'Target probe',
    description: 'Test-only.',
    input: z.strictObject({ path: z.string().optional(), depth: z.number().int().optional() }),
    result: z.object({ relative: z.string().nullable(), directory: z.boolean() }),
    access: 'read',
    target: { field: 'path', kind, optional: true },
    run: async (_input, _ctx, target: ResolvedPath | null) => ({
      result: { relative: target?.relative ?? null, directory: target?.stat?.isDirectory() ?? false },
      text: 'ok',
    }),
  };
}

/** JSON log lines written by the app's pino logger. */
function logSink(): { lines: Array<Record<string, unknown>>; logger: { level: string; stream: { write(line: string): void } } } {
  const lines: Array<Record<string, unknown>> = [];
  return { lines, logger: { level: 'info', stream: { write: (line) => void lines.push(JSON.parse(line)) } } };
}

describe('null for an optional field means left out', () => {
  it('reads with offset: null and limit: null exactly as without them', async () => {
    t = await makeTestApp();
    await writeFile(path.join(t.root, 'a.txt'), 'one\ntwo\n');
    const plain = await t.request.post('/v1/tools/read').set('X-Session-Id', 's1').send({ file_path: 'a.txt' });
    const nulls = await t.request.post('/v1/tools/read').set('X-Session-Id', 's2').send({ file_path: 'a.txt', offset: null, limit: null });
    expect(plain.status).toBe(200);
    expect(nulls.status).toBe(200);
    expect(nulls.body).toEqual(plain.body);
  });

  it('edits with replace_all: null as with replace_all left out', async () => {
    t = await makeTestApp();
    await writeFile(path.join(t.root, 'b.txt'), 'x y x\n');
    await readFully(t, 'b.txt');
    const res = await t.request.post('/v1/tools/edit').send({ file_path: 'b.txt', old_string: 'x', new_string: 'z', replace_all: null });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('MULTIPLE_MATCHES');
  });

  it('refuses null for a required field, naming it, and changes nothing', async () => {
    t = await makeTestApp();
    const res = await t.request.post('/v1/tools/write').send({ file_path: 'c.txt', content: null });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_INPUT');
    expect(res.body.error.details.fields.map((f: { field: string }) => f.field)).toEqual(['body.content']);
  });
});

describe('callTool: one transport-neutral call', () => {
  it('logs one tool_call line with the transport, also for invalid input, and tells the listeners', async () => {
    const sink = logSink();
    t = await makeTestApp({ build: { logger: sink.logger } });
    const seen: ToolCallEvent[] = [];
    t.app.services.toolCallListeners.push((e) => seen.push(e));
    await writeFile(path.join(t.root, 'a.txt'), 'hello\n');
    expect((await t.request.post('/v1/tools/read').send({ file_path: 'a.txt' })).status).toBe(200);
    expect((await t.request.post('/v1/tools/read').send({ file_path: 'a.txt', offset: 'x' })).status).toBe(400);
    const calls = sink.lines.filter((l) => l.event === 'tool_call');
    expect(calls.map((l) => [l.tool, l.outcome, l.code, l.transport, l.path])).toEqual([
      ['Read', 'ok', null, 'rest', 'a.txt'],
      ['Read', 'error', 'INVALID_INPUT', 'rest', null],
    ]);
    expect(seen.map((e) => e.transport)).toEqual(['rest', 'rest']);
    expect(JSON.stringify(sink.lines)).not.toContain('hello');
  });

  it('runs without Fastify for another front end, with the same checks and telemetry', async () => {
    t = await makeTestApp();
    const seen: ToolCallEvent[] = [];
    t.app.services.toolCallListeners.push((e) => seen.push(e));
    const read = t.app.tools.find((tool) => tool.name === 'Read')!;
    await writeFile(path.join(t.root, 'm.txt'), 'mcp\n');
    const opts = { session: 'mcp-1', log: t.app.log, transport: 'mcp' as const };
    const out = await callTool(t.app.services, read, { file_path: 'm.txt', limit: null }, opts);
    expect(out.text).toContain('1→mcp');
    await expect(callTool(t.app.services, read, { file_path: '../x' }, opts)).rejects.toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE' });
    await expect(callTool(t.app.services, read, { file_path: 'm.txt', extra: 1 }, opts)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      details: { fields: [{ field: 'body.extra' }] },
    });
    expect(seen.map((e) => [e.transport, e.session, e.code])).toEqual([
      ['mcp', 'mcp-1', null],
      ['mcp', 'mcp-1', 'PATH_OUTSIDE_WORKSPACE'],
      ['mcp', 'mcp-1', 'INVALID_INPUT'],
    ]);
  });
});

describe('declared targets (order, discovery folders)', () => {
  const tools = [targetProbe('dir_probe', 'directory'), targetProbe('any_probe', 'file-or-directory')];

  it('defaults an optional folder target to the root, also for null', async () => {
    t = await makeTestApp({ build: { tools } });
    for (const body of [{}, { path: null }, { path: '.' }]) {
      const res = await t.request.post('/v1/tools/dir_probe').send(body);
      expect(res.status).toBe(200);
      expect(res.body.result).toEqual({ relative: '.', directory: true });
    }
  });

  it('answers NOT_A_DIRECTORY for a file or a FIFO, FILE_NOT_FOUND for a missing folder', async () => {
    t = await makeTestApp({ build: { tools } });
    await mkdir(path.join(t.root, 'sub'));
    await writeFile(path.join(t.root, 'f.txt'), 'x');
    execFileSync('mkfifo', [path.join(t.root, 'pipe')]);
    const post = (slug: string, p: string) => t!.request.post(`/v1/tools/${slug}`).send({ path: p });
    expect((await post('dir_probe', 'sub')).body.result).toEqual({ relative: 'sub', directory: true });
    const file = await post('dir_probe', 'f.txt');
    expect([file.status, file.body.error.code]).toEqual([400, 'NOT_A_DIRECTORY']);
    const fifo = await post('dir_probe', 'pipe');
    expect([fifo.status, fifo.body.error.code]).toEqual([400, 'NOT_A_DIRECTORY']);
    const missing = await post('dir_probe', 'nope');
    expect([missing.status, missing.body.error.code]).toEqual([404, 'FILE_NOT_FOUND']);
    // Grep's kind: one file or a folder, nothing else.
    expect((await post('any_probe', 'f.txt')).body.result).toEqual({ relative: 'f.txt', directory: false });
    expect((await post('any_probe', 'sub')).body.result).toEqual({ relative: 'sub', directory: true });
    const anyFifo = await post('any_probe', 'pipe');
    expect([anyFifo.status, anyFifo.body.error.code]).toEqual([400, 'NOT_A_DIRECTORY']);
  });

  it('checks the path, deny globs and kind in order', async () => {
    t = await makeTestApp({ config: { denyRead: ['secret/**'] }, build: { tools } });
    await mkdir(path.join(t.root, 'secret'));
    await writeFile(path.join(t.root, 'secret', 'f'), 'x');
    const code = async (p: string) => (await t!.request.post('/v1/tools/dir_probe').send({ path: p })).body.error.code;
    expect(await code('../x')).toBe('PATH_OUTSIDE_WORKSPACE');
    expect(await code('secret/f')).toBe('PATH_DENIED');
    expect(await code('secret/missing')).toBe('PATH_DENIED');
  });
});
