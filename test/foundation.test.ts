import { chmod, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { probeTool } from './fixtures/probe-tool.js';
import { makeTestApp, type TestApp } from './helpers.js';

let t: TestApp;
afterEach(async () => t?.close());

const tools = [probeTool('read'), probeTool('write')];

async function start(
  config: Parameters<typeof makeTestApp>[0] extends infer O ? (O extends { config?: infer C } ? C : never) : never = {},
) {
  t = await makeTestApp({ config, build: { tools } });
  return t;
}

function expectError(res: { status: number; body: unknown }, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ error: { code, message: expect.any(String), details: expect.any(Object) } });
}

describe('health and readiness', () => {
  it('answers /healthz with the package version', async () => {
    await start();
    const res = await t.request.get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', version: '0.1.0' });
  });

  it('answers /readyz ready while the root is writable', async () => {
    await start();
    const res = await t.request.get('/readyz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready' });
  });
});

describe('readiness when the root is gone', () => {
  it('answers 503 unavailable (the documented exception to the error shape)', async () => {
    await start();
    await rm(t.root, { recursive: true, force: true });
    const res = await t.request.get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'unavailable', reason: 'root missing' });
    expect((await t.request.get('/healthz')).status).toBe(200);
  });

  it('says the root is not a folder when a file took its place', async () => {
    await start();
    await rm(t.root, { recursive: true, force: true });
    await writeFile(t.root, 'not a folder');
    const res = await t.request.get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'unavailable', reason: 'root not a folder' });
  });

  it.skipIf(process.getuid?.() === 0)('says the root is not writable (not readable) from its mode', async () => {
    await start();
    await chmod(t.root, 0o555);
    expect((await t.request.get('/readyz')).body).toEqual({ status: 'unavailable', reason: 'root not writable' });
    await chmod(t.root, 0o000);
    expect((await t.request.get('/readyz')).body).toEqual({ status: 'unavailable', reason: 'root not readable' });
    await chmod(t.root, 0o755);
  });
});

describe('auth', () => {
  it('refuses every protected route without the token, unknown routes included', async () => {
    await start({ token: 'tok-123' });
    for (const [method, url] of [
      ['post', '/v1/tools/probe_read'],
      ['get', '/v1/tools'],
      ['get', '/nope'],
      ['delete', '/v1/sessions/a'],
    ] as const) {
      const res = await t.request[method](url).send({ file_path: 'a' });
      expectError(res, 401, 'UNAUTHORIZED');
    }
  });

  it('refuses a wrong token and a token without the Bearer scheme', async () => {
    await start({ token: 'tok-123' });
    expectError(await t.request.get('/v1/tools').set('Authorization', 'Bearer tok-124'), 401, 'UNAUTHORIZED');
    expectError(await t.request.get('/v1/tools').set('Authorization', 'tok-123'), 401, 'UNAUTHORIZED');
    expectError(await t.request.get('/v1/tools').set('Authorization', 'Bearer '), 401, 'UNAUTHORIZED');
  });

  it('accepts the right token, the scheme in any case (RFC 9110)', async () => {
    await start({ token: 'tok-123' });
    expect((await t.request.get('/v1/tools').set('Authorization', 'Bearer tok-123')).status).toBe(200);
    expect((await t.request.get('/v1/tools').set('Authorization', 'bearer tok-123')).status).toBe(200);
  });

  it('leaves health, readiness, docs and the OpenAPI document public', async () => {
    await start({ token: 'tok-123' });
    expect((await t.request.get('/healthz')).status).toBe(200);
    expect((await t.request.get('/readyz')).status).toBe(200);
    expect((await t.request.get('/openapi.json')).status).toBe(200);
    expect((await t.request.get('/docs/')).status).toBe(200);
  });

  it('checks auth before the body: a bad body without a token is 401', async () => {
    await start({ token: 'tok-123' });
    const res = await t.request.post('/v1/tools/probe_read').set('Content-Type', 'application/json').send('{not json');
    expectError(res, 401, 'UNAUTHORIZED');
  });
});

describe('request ids', () => {
  it('gives every response a unique X-Request-Id', async () => {
    await start();
    const a = await t.request.get('/healthz');
    const b = await t.request.get('/nope');
    expect(a.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
  });

  it('echoes a valid incoming X-Request-Id and replaces an invalid one', async () => {
    await start();
    expect((await t.request.get('/healthz').set('X-Request-Id', 'trace:42.a_b-c')).headers['x-request-id']).toBe('trace:42.a_b-c');
    expect((await t.request.get('/healthz').set('X-Request-Id', 'bad id!')).headers['x-request-id']).not.toBe('bad id!');
  });
});

describe('error model', () => {
  it('answers an unknown route with NOT_FOUND in the error shape', async () => {
    await start();
    expectError(await t.request.get('/v1/nothing'), 404, 'NOT_FOUND');
  });

  it('answers a body that is not JSON with INVALID_INPUT', async () => {
    await start();
    const res = await t.request.post('/v1/tools/probe_read').set('Content-Type', 'application/json').send('{"file_path":');
    expectError(res, 400, 'INVALID_INPUT');
  });

  it('answers a non-JSON content type with INVALID_INPUT', async () => {
    await start();
    const res = await t.request.post('/v1/tools/probe_read').set('Content-Type', 'text/plain').send('file_path=a');
    expectError(res, 400, 'INVALID_INPUT');
  });

  it('names an unknown field', async () => {
    await start();
    const res = await t.request.post('/v1/tools/probe_read').send({ file_path: 'a', extra: 1 });
    expectError(res, 400, 'INVALID_INPUT');
    expect(JSON.stringify(res.body.error.details)).toContain('extra');
  });

  it('names a field with the wrong type', async () => {
    await start();
    const res = await t.request.post('/v1/tools/probe_read').send({ file_path: 'a', count: '3' });
    expectError(res, 400, 'INVALID_INPUT');
    expect(res.body.error.details.fields[0].field).toBe('body.count');
  });

  it('names a missing field', async () => {
    await start();
    const res = await t.request.post('/v1/tools/probe_read').send({});
    expectError(res, 400, 'INVALID_INPUT');
    expect(res.body.error.details.fields[0].field).toBe('body.file_path');
  });

  it('answers a body over the limit with PAYLOAD_TOO_LARGE naming the limit and the setting', async () => {
    await start({ bodyLimit: 1024 });
    const res = await t.request.post('/v1/tools/probe_read').send({ file_path: 'x'.repeat(2000) });
    expectError(res, 413, 'PAYLOAD_TOO_LARGE');
    expect(res.body.error.message).toBe(
      'The request body is over the 1 KiB limit (--body-limit, SIDEFILE_BODY_LIMIT); send less content per call.',
    );
    expect(res.body.error.details).toEqual({ limit: 1024 });
  });

  it('names the default limit in MiB', async () => {
    await start({ bodyLimit: 32 * 1024 * 1024 });
    const res = await t.request.post('/v1/tools/probe_read').send({ file_path: 'x'.repeat(33 * 1024 * 1024) });
    expectError(res, 413, 'PAYLOAD_TOO_LARGE');
    expect(res.body.error.message).toContain('over the 32 MiB limit (--body-limit, SIDEFILE_BODY_LIMIT)');
  });

  it('refuses an invalid X-Session-Id', async () => {
    await start();
    for (const id of ['has space', 'x'.repeat(129), 'slash/no']) {
      expectError(await t.request.post('/v1/tools/probe_read').set('X-Session-Id', id).send({ file_path: 'a' }), 400, 'INVALID_INPUT');
    }
  });

  it('runs a tool in the default session without the header', async () => {
    await start();
    const res = await t.request.post('/v1/tools/probe_read').send({ file_path: 'a.txt' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ result: { relative: 'a.txt', exists: false, session: 'default' }, text: 'probed a.txt' });
  });
});

describe('check order', () => {
  it('answers a path outside before a denied glob', async () => {
    await start({ denyRead: ['**'] });
    expectError(await t.request.post('/v1/tools/probe_read').send({ file_path: '../x' }), 403, 'PATH_OUTSIDE_WORKSPACE');
    expectError(await t.request.post('/v1/tools/probe_read').send({ file_path: 'x' }), 403, 'PATH_DENIED');
  });

  it('answers a denied glob before read-only mode', async () => {
    await start({ denyWrite: ['locked/**'], readOnly: true });
    expectError(await t.request.post('/v1/tools/probe_write').send({ file_path: 'locked/a' }), 403, 'PATH_DENIED');
    expectError(await t.request.post('/v1/tools/probe_write').send({ file_path: 'free/a' }), 403, 'READ_ONLY');
    expect((await t.request.post('/v1/tools/probe_read').send({ file_path: 'free/a' })).status).toBe(200);
  });

  it('always denies writes under .git, nested repositories too', async () => {
    await start();
    expectError(await t.request.post('/v1/tools/probe_write').send({ file_path: '.git/config' }), 403, 'PATH_DENIED');
    expectError(await t.request.post('/v1/tools/probe_write').send({ file_path: 'sub/.git/hooks/pre-commit' }), 403, 'PATH_DENIED');
    expect((await t.request.post('/v1/tools/probe_read').send({ file_path: '.git/config' })).status).toBe(200);
  });

  it('denies a file reached through a link under another name', async () => {
    await start({ denyRead: ['secrets/**'] });
    await mkdir(path.join(t.root, 'secrets'));
    await writeFile(path.join(t.root, 'secrets', 'key'), 'k');
    await symlink('secrets/key', path.join(t.root, 'innocent'));
    expectError(await t.request.post('/v1/tools/probe_read').send({ file_path: 'innocent' }), 403, 'PATH_DENIED');
  });

  it('answers read-only before NOT_A_FILE, and NOT_A_FILE for a directory', async () => {
    await start({ readOnly: true });
    await mkdir(path.join(t.root, 'dir'));
    expectError(await t.request.post('/v1/tools/probe_write').send({ file_path: 'dir' }), 403, 'READ_ONLY');
    expectError(await t.request.post('/v1/tools/probe_read').send({ file_path: 'dir' }), 400, 'NOT_A_FILE');
  });

  it('never reveals the root in an error', async () => {
    await start();
    for (const file_path of ['../../etc/passwd', `${path.dirname(t.root)}/other`, 'a\u0000b']) {
      const res = await t.request.post('/v1/tools/probe_read').send({ file_path });
      expect(res.status).toBe(403);
      expect(JSON.stringify(res.body)).not.toContain(path.dirname(t.root));
    }
  });
});

describe('sessions', () => {
  it('forgets an unknown session with 0', async () => {
    await start();
    const res = await t.request.delete('/v1/sessions/agent-1');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ session: 'agent-1', forgotten: 0 });
  });

  it('refuses an invalid session id in the path', async () => {
    await start();
    expectError(await t.request.delete(`/v1/sessions/${'x'.repeat(129)}`), 400, 'INVALID_INPUT');
  });
});

describe('GET /v1/tools', () => {
  it('lists each tool with its name, title, method, endpoint, description and input JSON Schema', async () => {
    await start();
    const res = await t.request.get('/v1/tools');
    expect(res.status).toBe(200);
    const probe = res.body.tools.find((x: { name: string }) => x.name === 'ProbeRead');
    expect(probe).toEqual({
      name: 'ProbeRead',
      title: 'Probe',
      method: 'POST',
      endpoint: '/v1/tools/probe_read',
      description: 'Test-only probe.\nReports the resolved path.',
      input_schema: {
        type: 'object',
        properties: {
          file_path: { type: 'string', description: 'The file to probe.' },
          count: { type: 'integer', minimum: 1, maximum: 9007199254740991, description: 'A number, to test type errors.' },
        },
        required: ['file_path'],
        additionalProperties: false,
      },
    });
  });
});
