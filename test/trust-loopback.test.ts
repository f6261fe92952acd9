import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers.js';

/** --trust-loopback: loopback peers need no token; every other peer still does. */

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const TOKEN = 'loopback-test-token-0123456789';

async function status(app: TestApp, remoteAddress: string, headers: Record<string, string> = {}): Promise<number> {
  const res = await app.app.inject({
    method: 'GET',
    url: '/v1/tools',
    remoteAddress,
    headers: { host: 'box-1.team-a.svc:8080', ...headers },
  });
  return res.statusCode;
}

describe('--trust-loopback', () => {
  it('lets loopback peers in without a token and keeps others out', async () => {
    t = await makeTestApp({ config: { token: TOKEN, trustLoopback: true } });
    expect(await status(t, '127.0.0.1', { host: '127.0.0.1:8080' })).toBe(200);
    expect(await status(t, '::1', { host: 'localhost:8080' })).toBe(200);
    expect(await status(t, '::ffff:127.0.0.1', { host: '127.0.0.1:8080' })).toBe(200);
    expect(await status(t, '10.1.2.3')).toBe(401);
    expect(await status(t, '10.1.2.3', { authorization: `Bearer ${TOKEN}` })).toBe(200);
  });

  it('still refuses a rebinding Host from a loopback peer it lets in without a token', async () => {
    t = await makeTestApp({ config: { token: TOKEN, trustLoopback: true } });
    expect(await status(t, '127.0.0.1', { host: 'evil.example:8080' })).toBe(403);
  });

  it('is off by default: a loopback peer needs the token', async () => {
    t = await makeTestApp({ config: { token: TOKEN } });
    expect(await status(t, '127.0.0.1', { host: '127.0.0.1:8080' })).toBe(401);
    expect(await status(t, '127.0.0.1', { host: '127.0.0.1:8080', authorization: `Bearer ${TOKEN}` })).toBe(200);
  });
});
