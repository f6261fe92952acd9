import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSidefileClient } from '@sidefile/client';
import type { paths } from './fixtures/sandboxd/schema.js';
import { listenOnLoopback, makeTestApp, type TestApp } from './helpers.js';
import { assertConforms } from './support/sandboxd-contract.js';

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await makeTestApp();
  base = await listenOnLoopback(t);
});
afterAll(async () => t.close());

type Route = '/files/{path}' | '/health' | '/metadata';

/** Every answer a test sees goes through sandboxd's contract first. */
async function checkedFetch(route: Route, input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  const response = await fetch(request);
  const type = response.headers.get('content-type');
  const copy = response.clone();
  const body = request.method !== 'HEAD' && type?.startsWith('application/json') ? await copy.json() : null;
  assertConforms(route, request.method, { status: response.status, contentType: request.method === 'HEAD' ? null : type, body });
  return response;
}

describe('conformance with sandboxd’s FilesystemService v1 document', () => {
  it('runs a session with a client generated from sandboxd’s document: write, read, list, exists, delete, a binary round trip', async () => {
    const client = createClient<paths>({ baseUrl: `${base}/v1`, fetch: (req: Request) => checkedFetch('/files/{path}', req) });
    const bytes = (b: unknown) => b as NonNullable<RequestInit['body']>;
    const put = await client.PUT('/files/{path}', {
      params: { path: { path: 'work/main.py' }, query: { mode: '0755' } },
      body: 'print("hi")\n',
      bodySerializer: bytes,
      headers: { 'Content-Type': 'application/octet-stream' },
    });
    expect(put.response.status).toBe(204);
    // openapi-fetch encodes the whole path (`/` → %2F), as the SDKs do.
    expect(put.response.url).toContain('/v1/files/work%2Fmain.py');
    expect(fs.statSync(path.join(t.root, 'work/main.py')).mode & 0o777).toBe(0o755);
    const read = await client.GET('/files/{path}', { params: { path: { path: 'work/main.py' } }, parseAs: 'text' });
    expect(read.data).toBe('print("hi")\n');
    const list = await client.GET('/files/{path}', { params: { path: { path: 'work' } } });
    expect(list.data).toMatchObject({ path: '/work', entries: [{ name: 'main.py', type: 'file', size: 12, mode: '0755' }] });
    const exists = await checkedFetch('/files/{path}', `${base}/v1/files/work%2Fmain.py`, { method: 'HEAD' });
    expect(exists.status).toBe(200);
    const blob = randomBytes(300_000);
    await client.PUT('/files/{path}', { params: { path: { path: 'work/data.bin' } }, body: blob as never, bodySerializer: bytes });
    const back = await client.GET('/files/{path}', { params: { path: { path: 'work/data.bin' } }, parseAs: 'arrayBuffer' });
    expect(Buffer.from(back.data as ArrayBuffer).equals(blob)).toBe(true);
    const form = new FormData();
    form.append('file', new Blob([blob.subarray(0, 1000)]), 'part.bin');
    expect((await checkedFetch('/files/{path}', `${base}/v1/files/work%2Fpart.bin`, { method: 'PUT', body: form })).status).toBe(204);
    expect(fs.readFileSync(path.join(t.root, 'work/part.bin')).equals(blob.subarray(0, 1000))).toBe(true);
    const notEmpty = await client.DELETE('/files/{path}', { params: { path: { path: 'work' } } });
    expect(notEmpty.response.status).toBe(409);
    expect(notEmpty.error).toMatchObject({ code: 'DIRECTORY_NOT_EMPTY' });
    const gone = await client.DELETE('/files/{path}', { params: { path: { path: 'work' }, query: { recursive: true } } });
    expect(gone.response.status).toBe(204);
    const missing = await checkedFetch('/files/{path}', `${base}/v1/files/work%2Fmain.py`, { method: 'HEAD' });
    expect(missing.status).toBe(404);
    const notFound = await client.GET('/files/{path}', { params: { path: { path: 'work/main.py' } } });
    expect(notFound.error).toMatchObject({ code: 'FILE_NOT_FOUND', message: expect.any(String) });
  });

  it('answers the health and metadata routes in sandboxd’s shapes', async () => {
    const health = await checkedFetch('/health', `${base}/v1/health`);
    expect(health.status).toBe(200);
    const meta = await checkedFetch('/metadata', `${base}/v1/metadata`);
    expect(((await meta.json()) as { env: Record<string, string> }).env.SIDEFILE_VERSION).toBeTruthy();
  });

  it('every error and added status still validates: 403, 404, 409, 412, 416, 400, 206, 304', async () => {
    fs.writeFileSync(path.join(t.root, 'c.txt'), '0123456789');
    const url = `${base}/v1/files/c.txt`;
    const etag = (await checkedFetch('/files/{path}', url, { method: 'HEAD' })).headers.get('etag')!;
    const statuses = [
      (await checkedFetch('/files/{path}', `${base}/v1/files/%2E%2E%2Fetc%2Fpasswd`)).status,
      (await checkedFetch('/files/{path}', `${base}/v1/files/none`)).status,
      (await checkedFetch('/files/{path}', url, { headers: { Range: 'bytes=2-3' } })).status,
      (await checkedFetch('/files/{path}', url, { headers: { Range: 'bytes=99-' } })).status,
      (await checkedFetch('/files/{path}', url, { headers: { 'If-None-Match': etag } })).status,
      (await checkedFetch('/files/{path}', url, { method: 'PUT', body: 'x', headers: { 'If-Match': '"0"' } })).status,
      (await checkedFetch('/files/{path}', `${url}?mode=999`, { method: 'PUT', body: 'x' })).status,
      (await checkedFetch('/files/{path}', `${base}/v1/files/`, { method: 'DELETE' })).status,
    ];
    expect(statuses).toEqual([403, 404, 206, 416, 304, 412, 400, 400]);
  });
});

describe('the calls agent-sandbox’s Python and Go clients make', () => {
  /** Python: urllib.parse.quote(path, safe=''); Go: every byte outside A-Za-z0-9-_.~ encoded, `.`/`..` as %2E. */
  const python = (p: string) => encodeURIComponent(p).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const go = (p: string) => {
    const e = [...Buffer.from(p)]
      .map((b) =>
        /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
      )
      .join('');
    return e === '.' ? '%2E' : e === '..' ? '%2E%2E' : e;
  };
  const routerHeaders = { 'X-Sandbox-ID': 'sb-1', 'X-Sandbox-Namespace': 'default', 'X-Sandbox-Port': '8080', 'X-Request-ID': 'req-1' };

  it('writes, reads, lists, probes and deletes with their URL encodings and router headers', async () => {
    for (const [name, enc] of [
      ['python', python],
      ['go', go],
    ] as const) {
      const p = `${name} dir/sub (1)/ünï.txt`;
      const url = `${base}/v1/files/${enc(p)}`;
      const put = await checkedFetch('/files/{path}', url, {
        method: 'PUT',
        body: 'bytes',
        headers: { 'Content-Type': 'application/octet-stream', ...routerHeaders },
      });
      expect(put.status, name).toBe(204);
      expect(fs.readFileSync(path.join(t.root, p), 'utf8')).toBe('bytes');
      expect(await (await checkedFetch('/files/{path}', url, { headers: routerHeaders })).text()).toBe('bytes');
      const list = await checkedFetch('/files/{path}', `${base}/v1/files/${enc(`${name} dir/sub (1)`)}`, { headers: routerHeaders });
      expect(((await list.json()) as { entries: Array<{ name: string }> }).entries.map((e) => e.name)).toEqual(['ünï.txt']);
      expect((await checkedFetch('/files/{path}', url, { method: 'HEAD', headers: routerHeaders })).status).toBe(200);
      expect(
        (
          await checkedFetch('/files/{path}', `${base}/v1/files/${enc(`${name} dir`)}?recursive=true`, {
            method: 'DELETE',
            headers: routerHeaders,
          })
        ).status,
      ).toBe(204);
      expect((await checkedFetch('/files/{path}', url, { method: 'HEAD', headers: routerHeaders })).status).toBe(404);
    }
  });

  it('answers errors they read as `code: message` (Go) and raise on (Python); `.` and `..` encoded by Go', async () => {
    // Sent verbatim, as Go's client does (fetch would normalize %2E%2E away).
    const res = await rawGet(`/v1/files/${go('..')}`);
    expect(res.status).toBe(403);
    assertConforms('/files/{path}', 'GET', { status: res.status, contentType: 'application/json', body: res.body });
    expect(res.body).toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE', message: expect.stringMatching(/climbs out of the workspace/) });
    const dot = await rawGet(`/v1/files/${go('.')}`);
    expect(dot.status).toBe(200);
    assertConforms('/files/{path}', 'GET', { status: dot.status, contentType: 'application/json', body: dot.body });
  });
});

function rawGet(pathAndQuery: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${base}${pathAndQuery}`, { method: 'GET' }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.path = pathAndQuery;
    req.on('error', reject);
    req.end();
  });
}

describe('sidefile’s own typed client', () => {
  it('uploads a Blob and a stream, downloads a stream, lists, probes and removes', async () => {
    const client = createSidefileClient({ baseUrl: base, session: 'client' });
    const blob = randomBytes(50_000);
    const etag = await client.files.upload('c/blob.bin', new Blob([blob]));
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    await client.files.upload('c/stream.bin', new Blob([blob]).stream(), { mode: '0600' });
    const down = await client.files.download('c/stream.bin');
    expect(Buffer.from(await new Response(down.body).arrayBuffer()).equals(blob)).toBe(true);
    expect(down.etag).toBe(etag);
    expect((await client.files.list('c')).entries.map((e) => e.name)).toEqual(['blob.bin', 'stream.bin']);
    expect(await client.files.exists('c/blob.bin')).toBe(true);
    await client.files.remove('c', { recursive: true });
    expect(await client.files.exists('c/blob.bin')).toBe(false);
    await expect(client.files.remove('c')).rejects.toMatchObject({ code: 'FILE_NOT_FOUND', status: 404 });
  });
});
