import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers.js';

/** The Files API keeps every guard of the other routes: auth, origin, read-only, deny globs, events and metrics. */
let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await t.close();
});

function put(p: string, body: Buffer | string, type = 'application/octet-stream') {
  return t.request.put(`/v1/files/${p}`).set('Content-Type', type).send(body);
}

describe('Files API: health, metadata, auth and origin', () => {
  it('serves /v1/health and /v1/metadata without the token; the file routes need it', async () => {
    const secured = await makeTestApp({ config: { token: 's3cret-token', metadata: { TEAM: 'ml' } } });
    try {
      const health = await secured.request.get('/v1/health');
      expect(health.status).toBe(200);
      expect(health.body).toEqual({ status: 'ok', uptime_seconds: expect.any(Number) });
      const meta = await secured.request.get('/v1/metadata');
      expect(meta.status).toBe(200);
      expect(meta.body.env).toMatchObject({ TEAM: 'ml', SIDEFILE_VERSION: expect.any(String) });
      expect(JSON.stringify(meta.body)).not.toContain(secured.root);
      expect(JSON.stringify(meta.body)).not.toContain('s3cret-token');
      const denied = await secured.request.get('/v1/files/');
      expect(denied.status).toBe(401);
      expect(denied.body).toMatchObject({ code: 'UNAUTHORIZED', error: { code: 'UNAUTHORIZED' } });
      const ok = await secured.request.get('/v1/files/').set('Authorization', 'Bearer s3cret-token');
      expect(ok.status).toBe(200);
    } finally {
      await secured.close();
    }
  });

  it('refuses a foreign Origin on the file routes, PUT included, before auth; read-only refuses PUT and DELETE', async () => {
    const res = await t.request.put('/v1/files/x.txt').set('Origin', 'https://evil.example').set('Content-Type', 'text/plain').send('x');
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('ORIGIN_DENIED');
    expect(fs.existsSync(path.join(t.root, 'x.txt'))).toBe(false);
    const ro = await makeTestApp({ config: { readOnly: true } });
    try {
      fs.writeFileSync(path.join(ro.root, 'a.txt'), 'a');
      expect((await ro.request.put('/v1/files/a.txt').set('Content-Type', 'application/octet-stream').send('b')).body.code).toBe(
        'READ_ONLY',
      );
      expect((await ro.request.delete('/v1/files/a.txt')).body.code).toBe('READ_ONLY');
      expect((await ro.request.get('/v1/files/a.txt')).status).toBe(200);
    } finally {
      await ro.close();
    }
  });

  it('deny globs: a denied file is neither read, written, removed nor listed', async () => {
    const denied = await makeTestApp({ config: { denyRead: ['secret/**'] } });
    try {
      fs.mkdirSync(path.join(denied.root, 'secret'));
      fs.writeFileSync(path.join(denied.root, 'secret/k'), 'k');
      expect((await denied.request.get('/v1/files/secret/k')).body.code).toBe('PATH_DENIED');
      expect((await denied.request.put('/v1/files/secret/k').set('Content-Type', 'application/octet-stream').send('x')).body.code).toBe(
        'PATH_DENIED',
      );
      expect((await denied.request.delete('/v1/files/secret/k')).body.code).toBe('PATH_DENIED');
      expect((await denied.request.get('/v1/files/secret')).status).toBe(403);
      const root = await denied.request.get('/v1/files/');
      expect(root.body.entries.map((e: { name: string }) => e.name)).toEqual([]);
      expect(fs.readFileSync(path.join(denied.root, 'secret/k'), 'utf8')).toBe('k');
    } finally {
      await denied.close();
    }
  });

  it('publishes events and metrics for Upload and Remove', async () => {
    await put('ev.txt', 'x');
    await t.request.delete('/v1/files/ev.txt').expect(204);
    const metrics = await t.request.get('/metrics');
    expect(metrics.text).toMatch(/tool="Upload"/);
    expect(metrics.text).toMatch(/tool="Remove"/);
  });
});
