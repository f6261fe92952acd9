import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAgent, type Model, type ModelToolCall } from '../examples/agent-loop.js';
import { CLIENT_TYPES_FILE, OPENAPI_FILE, renderClientTypes } from '../scripts/openapi-doc.js';
import { createSidefileClient, SidefileError } from '../packages/client/src/index.js';
import { listenOnLoopback, makeTestApp, type TestApp } from './helpers.js';

const run = promisify(execFile);

/** A recorded model: each turn's calls, and what it was handed back. */
function recorded(turns: ModelToolCall[][]): Model & { seen: string[][] } {
  const seen: string[][] = [];
  let turn = 0;
  const model = async (results: Array<{ content: string }>) => {
    seen.push(results.map((r) => r.content));
    return turns[turn++] ?? [];
  };
  return Object.assign(model, { seen });
}

describe('@sidefile/client', () => {
  let t: TestApp;
  let baseUrl: string;
  beforeEach(async () => {
    t = await makeTestApp({ config: { token: 'tok' } });
    baseUrl = await listenOnLoopback(t);
  });
  afterEach(() => t.close());

  it('has types generated from the committed OpenAPI document', async () => {
    const expected = await renderClientTypes(await readFile(OPENAPI_FILE, 'utf8'));
    expect(await readFile(CLIENT_TYPES_FILE, 'utf8'), 'packages/client/src/api.ts is stale: run npm run openapi').toBe(expected);
  });

  it('calls a tool and answers { result, text }', async () => {
    await writeFile(path.join(t.root, 'a.txt'), 'one\ntwo\n');
    const client = createSidefileClient({ baseUrl, token: 'tok', session: 's1' });
    const answer = await client.call('read', { file_path: 'a.txt' });
    expect(answer.result.type).toBe('text');
    expect(answer.text).toContain('     1→one');
  });

  it('throws a SidefileError with the contract code, status and message', async () => {
    const client = createSidefileClient({ baseUrl, token: 'tok' });
    const err = await client.call('read', { file_path: 'missing.txt' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SidefileError);
    expect((err as SidefileError).status).toBe(404);
    expect((err as SidefileError).code).toBe('FILE_NOT_FOUND');
    const denied = await createSidefileClient({ baseUrl, token: 'wrong' })
      .call('read', { file_path: 'a.txt' })
      .catch((e: unknown) => e);
    expect((denied as SidefileError).code).toBe('UNAUTHORIZED');
  });

  it('runs the README agent loop against a recorded transcript', async () => {
    await writeFile(path.join(t.root, 'app.py'), 'def greet():\n    return "hi"\n');
    const model = recorded([
      [{ id: 'c1', name: 'Edit', input: { file_path: 'app.py', old_string: '"hi"', new_string: '"hello"' } }],
      [{ id: 'c2', name: 'Read', input: { file_path: 'app.py' } }],
      [{ id: 'c3', name: 'Edit', input: { file_path: 'app.py', old_string: '"hi"', new_string: '"hello"' } }],
      [{ id: 'c4', name: 'Frobnicate', input: {} }],
    ]);
    const transcript = await runAgent(model, { baseUrl, token: 'tok', session: 'agent-1' });
    expect(transcript.map((r) => [r.id, r.isError])).toEqual([
      ['c1', true],
      ['c2', false],
      ['c3', false],
      ['c4', true],
    ]);
    expect(model.seen[1]?.[0]).toMatch(/Read it first|has not been read/i);
    expect(model.seen[4]).toEqual(['Unknown tool Frobnicate.']);
    expect(await readFile(path.join(t.root, 'app.py'), 'utf8')).toBe('def greet():\n    return "hello"\n');
  });

  it('builds with its own tsconfig and is importable as @sidefile/client', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'sidefile-client-'));
    try {
      await run(path.resolve('node_modules/.bin/tsc'), ['-p', 'packages/client/tsconfig.json', '--outDir', path.join(dir, 'dist')]);
      await copyFile('packages/client/package.json', path.join(dir, 'package.json'));
      await symlink(path.resolve('node_modules'), path.join(dir, 'node_modules'));
      const script = "import('@sidefile/client').then((m) => console.log(Object.keys(m).sort().join(',')))";
      const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: dir });
      expect(stdout.trim()).toBe('SidefileError,createSidefileClient');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
