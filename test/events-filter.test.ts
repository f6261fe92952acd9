import { afterEach, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers.js';

/** `GET /v1/events?path=`: paths outside the root are refused before the stream opens. */

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('GET /v1/events filters', () => {
  it('refuses a path that climbs out of the root with 403 PATH_OUTSIDE_WORKSPACE, and too many paths with 400', async () => {
    t = await makeTestApp();
    const out = await t.app.inject({ method: 'GET', url: '/v1/events?path=../elsewhere' });
    expect(out.statusCode).toBe(403);
    expect(out.json().error.code).toBe('PATH_OUTSIDE_WORKSPACE');
    const many = await t.app.inject({ method: 'GET', url: `/v1/events?${Array.from({ length: 101 }, (_, i) => `path=p${i}`).join('&')}` });
    expect(many.statusCode).toBe(400);
    expect(many.json().error.code).toBe('INVALID_INPUT');
    const flag = await t.app.inject({ method: 'GET', url: '/v1/events?include_ignored=maybe' });
    expect(flag.statusCode).toBe(400);
  });
});
