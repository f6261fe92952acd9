import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, readFully, type TestApp } from './helpers.js';

/** Browsers and rebinding names cannot reach the workspace. */

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A raw request: node:http lets a test set Host and Origin as an attacker's browser would. */
function send(port: number, method: string, url: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: url, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function code(answer: Answer): string | undefined {
  try {
    return (JSON.parse(answer.body) as { error?: { code?: string } }).error?.code;
  } catch {
    return undefined;
  }
}

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function listening(config: Parameters<typeof makeTestApp>[0] = {}): Promise<{ t: TestApp; port: number }> {
  t = await makeTestApp(config);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  return { t, port: (t.app.server.address() as { port: number }).port };
}

const JSON_TYPE = { 'content-type': 'application/json' };

describe('DNS rebinding and foreign origins', () => {
  it('refuses every read and write from a rebinding name, in a concurrent loop, and nothing changes on disk', async () => {
    const { t: app, port } = await listening();
    await writeFile(path.join(app.root, 'secret.txt'), 'top secret\n');
    await mkdir(path.join(app.root, 'd'));
    await writeFile(path.join(app.root, 'd/victim.txt'), 'victim\n');
    await readFully(app, 'd/victim.txt', 'attacker');
    const attacks = [
      { method: 'POST', url: '/v1/tools/read', body: { file_path: 'secret.txt' } },
      { method: 'POST', url: '/v1/tools/write', body: { file_path: 'd/new.txt', content: 'pwned' } },
      { method: 'POST', url: '/v1/tools/write', body: { file_path: 'd/victim.txt', content: 'pwned' } },
      { method: 'POST', url: '/v1/tools/edit', body: { file_path: 'd/victim.txt', old_string: 'victim', new_string: 'pwned' } },
      { method: 'GET', url: '/v1/history?file_path=secret.txt' },
      { method: 'GET', url: '/v1/tools' },
      { method: 'GET', url: '/openapi.json' },
    ];
    const hosts = ['evil.example:8080', `evil.example:${port}`, 'localhost.evil.example', '10.0.0.1', '127.0.0.1.evil.example'];
    const tries = Array.from({ length: 140 }, (_, i) => {
      const attack = attacks[i % attacks.length]!;
      const host = hosts[i % hosts.length]!;
      const headers: Record<string, string> = { host, 'x-session-id': 'attacker' };
      if (i % 2 === 0) headers.origin = `http://${host}`;
      if (attack.body) Object.assign(headers, JSON_TYPE);
      return send(port, attack.method, attack.url, headers, attack.body && JSON.stringify(attack.body));
    });
    const answers = await Promise.all(tries);
    const through = answers.filter((a) => a.status !== 403 || code(a) !== 'ORIGIN_DENIED');
    expect(through.map((a) => `${a.status} ${a.body.slice(0, 80)}`)).toEqual([]);
    expect(answers.some((a) => a.body.includes('top secret'))).toBe(false);
    expect(readFileSync(path.join(app.root, 'd/victim.txt'), 'utf8')).toBe('victim\n');
    expect(existsSync(path.join(app.root, 'd/new.txt'))).toBe(false);
    expect(answers.every((a) => a.headers['access-control-allow-origin'] === undefined)).toBe(true);
  });

  it('judges each request by its own Host when loopback and rebinding names interleave (the last Host is remembered)', async () => {
    const { t: app, port } = await listening();
    await writeFile(path.join(app.root, 'secret.txt'), 'top secret\n');
    const hosts = [`127.0.0.1:${port}`, 'evil.example', 'evil.example', `localhost:${port}`, '127.0.0.1.evil.example', 'localhost'];
    const answers = await Promise.all(
      Array.from({ length: 120 }, async (_, i) => {
        const host = hosts[i % hosts.length]!;
        // A session each: a second Read of the same range in one session answers file_unchanged.
        const headers = { host, 'x-session-id': `s${i}`, ...JSON_TYPE };
        const res = await send(port, 'POST', '/v1/tools/read', headers, JSON.stringify({ file_path: 'secret.txt' }));
        return { host, status: res.status, code: code(res), secret: res.body.includes('top secret') };
      }),
    );
    const wrong = answers.filter((a) =>
      a.host.includes('evil') ? a.status !== 403 || a.code !== 'ORIGIN_DENIED' || a.secret : a.status !== 200 || !a.secret,
    );
    expect(wrong).toEqual([]);
  });

  it('refuses foreign origins on a loopback Host, in a concurrent loop', async () => {
    const { t: app, port } = await listening();
    await writeFile(path.join(app.root, 'secret.txt'), 'top secret\n');
    const origins = [
      'http://evil.example',
      'null',
      `http://localhost:${port + 1}`,
      `https://localhost:${port}`,
      'http://localhost',
      `http://127.0.0.2:${port}`,
      'file://',
      `http://localhost:${port}.evil.example`,
    ];
    const answers = await Promise.all(
      Array.from({ length: 80 }, (_, i) =>
        send(
          port,
          'POST',
          '/v1/tools/read',
          { host: `127.0.0.1:${port}`, origin: origins[i % origins.length]!, ...JSON_TYPE },
          JSON.stringify({ file_path: 'secret.txt' }),
        ),
      ),
    );
    const through = answers.filter((a) => a.status !== 403 || code(a) !== 'ORIGIN_DENIED');
    expect(through.map((a) => `${a.status} ${a.body.slice(0, 80)}`)).toEqual([]);
    expect(answers.some((a) => a.body.includes('top secret'))).toBe(false);
  });

  it('serves the own origins and loopback names, and leaves /healthz and /readyz alone', async () => {
    const { t: app, port } = await listening();
    await writeFile(path.join(app.root, 'a.txt'), 'hello\n');
    const body = JSON.stringify({ file_path: 'a.txt' });
    for (const origin of [`http://localhost:${port}`, `http://127.0.0.1:${port}`, `http://[::1]:${port}`]) {
      const res = await send(port, 'POST', '/v1/tools/read', { host: `localhost:${port}`, origin, ...JSON_TYPE }, body);
      expect(res.status, origin).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    }
    for (const host of ['localhost', `[::1]:${port}`, '127.0.0.1', '127.1.2.3:9']) {
      expect((await send(port, 'POST', '/v1/tools/read', { host, ...JSON_TYPE }, body)).status, host).toBe(200);
    }
    for (const url of ['/healthz', '/readyz']) {
      const res = await send(port, 'GET', url, { host: 'evil.example', origin: 'http://evil.example' });
      expect(res.status, url).toBe(200);
    }
  });

  it('derives the own origin from a loopback Host when the app is not listening (inject)', async () => {
    t = await makeTestApp();
    await writeFile(path.join(t.root, 'a.txt'), 'hello\n');
    const ok = await t.app.inject({
      method: 'POST',
      url: '/v1/tools/read',
      headers: { host: 'localhost:9000', origin: 'http://127.0.0.1:9000' },
      payload: { file_path: 'a.txt' },
    });
    expect(ok.statusCode).toBe(200);
    const denied = await t.app.inject({
      method: 'POST',
      url: '/v1/tools/read',
      headers: { host: 'localhost:9000', origin: 'http://127.0.0.1:9001' },
      payload: { file_path: 'a.txt' },
    });
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error.code).toBe('ORIGIN_DENIED');
  });

  it('with a token serves any Host, but still refuses a foreign Origin before auth', async () => {
    const { t: app, port } = await listening({ config: { token: 's3cret-token' } });
    await writeFile(path.join(app.root, 'a.txt'), 'hello\n');
    const body = JSON.stringify({ file_path: 'a.txt' });
    const auth = { authorization: 'Bearer s3cret-token', ...JSON_TYPE };
    expect((await send(port, 'POST', '/v1/tools/read', { host: 'sidefile.internal:8080', ...auth }, body)).status).toBe(200);
    // The page served from that name is its own origin.
    const same = await send(
      port,
      'POST',
      '/v1/tools/read',
      { host: 'sidefile.internal:8080', origin: 'http://sidefile.internal:8080', ...auth },
      body,
    );
    expect(same.status).toBe(200);
    const foreign = await send(port, 'POST', '/v1/tools/read', { host: 'sidefile.internal:8080', origin: 'http://evil.example' }, body);
    expect([foreign.status, code(foreign)]).toEqual([403, 'ORIGIN_DENIED']);
    const noToken = await send(port, 'POST', '/v1/tools/read', { host: 'sidefile.internal:8080', ...JSON_TYPE }, body);
    expect([noToken.status, code(noToken)]).toEqual([401, 'UNAUTHORIZED']);
  });

  it('serves names in --allowed-hosts and origins in --allowed-origins, with CORS headers only for those', async () => {
    const { t: app, port } = await listening({
      config: { allowedHosts: ['devbox.lan', 'other.lan:7000'], allowedOrigins: ['https://app.example.com'] },
    });
    await writeFile(path.join(app.root, 'a.txt'), 'hello\n');
    const body = JSON.stringify({ file_path: 'a.txt' });
    expect((await send(port, 'POST', '/v1/tools/read', { host: 'devbox.lan:8080', ...JSON_TYPE }, body)).status).toBe(200);
    expect((await send(port, 'POST', '/v1/tools/read', { host: 'other.lan:7000', ...JSON_TYPE }, body)).status).toBe(200);
    const wrongPort = await send(port, 'POST', '/v1/tools/read', { host: 'other.lan:7001', ...JSON_TYPE }, body);
    expect([wrongPort.status, code(wrongPort)]).toEqual([403, 'ORIGIN_DENIED']);

    const allowed = await send(
      port,
      'POST',
      '/v1/tools/read',
      { host: `127.0.0.1:${port}`, origin: 'https://app.example.com', ...JSON_TYPE },
      body,
    );
    expect(allowed.status).toBe(200);
    expect(allowed.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(allowed.headers.vary).toMatch(/Origin/);

    const preflight = await send(port, 'OPTIONS', '/v1/tools/read', {
      host: `127.0.0.1:${port}`,
      origin: 'https://app.example.com',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type,x-session-id',
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(preflight.headers['access-control-allow-methods']).toMatch(/POST/);
    expect(preflight.headers['access-control-allow-headers']).toMatch(/x-session-id/i);

    const foreignPreflight = await send(port, 'OPTIONS', '/v1/tools/read', {
      host: `127.0.0.1:${port}`,
      origin: 'https://evil.example',
      'access-control-request-method': 'POST',
    });
    expect([foreignPreflight.status, code(foreignPreflight)]).toEqual([403, 'ORIGIN_DENIED']);
    expect(foreignPreflight.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('tool bodies are JSON', () => {
  it('refuses text/plain, form and missing content types with INVALID_INPUT, and writes nothing', async () => {
    const { t: app, port } = await listening();
    const body = JSON.stringify({ file_path: 'new.txt', content: 'x' });
    const types = [
      'text/plain',
      'text/plain;charset=utf-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'text/x-diff',
      null,
    ];
    const answers = await Promise.all(
      Array.from({ length: 36 }, (_, i) => {
        const type = types[i % types.length];
        const headers: Record<string, string> = { host: `127.0.0.1:${port}` };
        if (type) headers['content-type'] = type;
        return send(port, 'POST', '/v1/tools/write', headers, body);
      }),
    );
    expect(answers.map((a) => [a.status, code(a)])).toEqual(answers.map(() => [400, 'INVALID_INPUT']));
    expect(existsSync(path.join(app.root, 'new.txt'))).toBe(false);
    const ok = await send(
      port,
      'POST',
      '/v1/tools/write',
      { host: `127.0.0.1:${port}`, 'content-type': 'application/json; charset=utf-8' },
      body,
    );
    expect(ok.status).toBe(200);
  });
});
