/**
 * Fuzzing request bodies and headers: random JSON, random field types, wrong and
 * extra fields, paths that probe the sandbox, random content types, session and request ids,
 * against every tool route (and restore): never a 5xx, always a 200 success shape or the error
 * error shape with a known code and its status, never the root's absolute path in an answer.
 * Seeded and time-bounded.
 */
import { execFileSync } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../src/errors.js';
import { makeTestApp, type TestApp } from './helpers.js';
import { TEST_SEED } from './support/seeded.js';

let t: TestApp;
let routes: Array<{ url: string; fields: string[] }>;

beforeAll(async () => {
  t = await makeTestApp({ config: { lockTimeoutMs: 2_000 } });
  await fsp.writeFile(path.join(t.root, 'a.txt'), 'alpha\nbeta "q" ‘x’\r\ngamma\n');
  await fsp.writeFile(path.join(t.root, 'empty.txt'), '');
  await fsp.writeFile(path.join(t.root, 'bin.dat'), Buffer.from([0, 1, 2, 255, 0]));
  await fsp.writeFile(
    path.join(t.root, 'nb.ipynb'),
    JSON.stringify(
      {
        cells: [{ cell_type: 'code', execution_count: 1, id: 'c1', metadata: {}, outputs: [], source: ['x = 1'] }],
        metadata: {},
        nbformat: 4,
        nbformat_minor: 5,
      },
      null,
      1,
    ) + '\n',
  );
  await fsp.writeFile(path.join(t.root, 'broken.ipynb'), '{"cells": [');
  await fsp.mkdir(path.join(t.root, 'dir'));
  await fsp.symlink('/etc', path.join(t.root, 'link-out'));
  await fsp.symlink('a.txt', path.join(t.root, 'link-in'));
  execFileSync('mkfifo', [path.join(t.root, 'fifo')]);
  const listed = (await t.app.inject({ method: 'GET', url: '/v1/tools' })).json() as {
    tools: Array<{ endpoint: string; input_schema: { properties: Record<string, unknown> } }>;
  };
  routes = listed.tools.map((tool) => ({ url: tool.endpoint, fields: Object.keys(tool.input_schema.properties) }));
  routes.push({ url: '/v1/history/restore', fields: ['file_path', 'version'] });
});
afterAll(async () => {
  await t.close();
});

const PATHS = [
  'a.txt',
  'empty.txt',
  'bin.dat',
  'nb.ipynb',
  'broken.ipynb',
  'dir',
  'fifo',
  'link-out/passwd',
  'link-in',
  'new/deep/file.txt',
  'new.ipynb',
  '../outside',
  '/etc/passwd',
  '',
  '.',
  'a.txt\u0000x',
  '\\\\host\\share',
  '//host/share',
  '.git/config',
  'x'.repeat(5000),
  'é/😀.txt',
  'cell-0',
];

/** A value of any JSON type, biased to what the fields expect. */
const valueArb = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...PATHS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('replace', 'insert', 'delete', 'code', 'markdown', 'raw', 'c1', 'cell-0', 'cell-99', 'alpha', 'beta'),
  },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -1, 1, 2 ** 53, 1e308, 2000, 2001)) },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

function bodyArb(fields: string[]): fc.Arbitrary<string | undefined> {
  const shaped = fc
    .tuple(
      fc.subarray(fields),
      fc.dictionary(fc.constantFrom(...fields, 'extra', '__proto__', 'constructor', 'FILE_PATH'), valueArb, { maxKeys: 3 }),
    )
    .chain(([keep, extra]) => fc.record(Object.fromEntries(keep.map((f) => [f, valueArb]))).map((base) => ({ ...base, ...extra })))
    .map((o) => JSON.stringify(o));
  return fc.oneof(
    { weight: 6, arbitrary: shaped },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('', '{', '{"file_path": "a.txt",}', '[]', 'null', '{"__proto__": {"x": 1}}', '\u0000', '{"a":1}{"b":2}'),
    },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

const headersArb = fc.record(
  {
    'content-type': fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json; charset=latin1',
      '',
    ),
    'x-session-id': fc.oneof(
      fc.constantFrom('s1', 's2', 'default', 'a'.repeat(128), 'a'.repeat(129), 'bad id', '../x', ''),
      fc.string({ maxLength: 10 }),
    ),
    'x-request-id': fc.oneof(fc.constantFrom('req-1', 'x'.repeat(129), 'bad id'), fc.string({ maxLength: 10 })),
    authorization: fc.constantFrom('Bearer nope', 'Basic x', ''),
    accept: fc.constantFrom('application/json', 'text/html', '*/*'),
  },
  { requiredKeys: [] },
);

const TEXTS = fc.oneof(
  fc.constantFrom('alpha', 'beta', '"q"', "'x'", '‘x’', '', 'gamma\n', 'alpha\nbeta', '$&', 'x = 2'),
  fc.string({ maxLength: 12 }),
);

/** A value of the type each field takes, mostly valid: the requests that reach the tools. */
function typedArb(field: string): fc.Arbitrary<unknown> {
  switch (field) {
    case 'file_path':
    case 'notebook_path':
      return fc.constantFrom(...PATHS);
    case 'replace_all':
      return fc.boolean();
    case 'offset':
    case 'limit':
      return fc.constantFrom(1, 2, 3, 0, -1, 2000, 2 ** 31, 1.5);
    case 'cell_id':
      return fc.constantFrom('c1', 'cell-0', 'cell-1', 'cell-99', 'nope');
    case 'cell_type':
      return fc.constantFrom('code', 'markdown', 'raw');
    case 'edit_mode':
      return fc.constantFrom('replace', 'insert', 'delete', 'bogus');
    case 'version':
      return fc.oneof(fc.constantFrom('20261130T000000000Z-000000', '../../etc/passwd'), fc.string({ maxLength: 8 }));
    default:
      return TEXTS;
  }
}

/** Every field of the route with a typed value, some left out; and valid headers. */
function nearValidArb(fields: string[]): fc.Arbitrary<{ body: string; headers: Record<string, string> }> {
  return fc.record({
    body: fc
      .record(Object.fromEntries(fields.map((f) => [f, typedArb(f)])), {
        requiredKeys: fields.filter((f) => /path|string|content|source/.test(f)),
      })
      .map((o) => JSON.stringify(o)),
    headers: fc.record({ 'content-type': fc.constant('application/json'), 'x-session-id': fc.constantFrom('s1', 's2', 'default') }),
  });
}

const requestArb = fc.integer({ min: 0, max: 1_000 }).chain((pick) => {
  const route = routes[pick % routes.length]!;
  const wild = fc.record({
    method: fc.constantFrom('POST', 'POST', 'POST', 'POST', 'GET', 'PUT', 'DELETE'),
    body: bodyArb(route.fields),
    headers: headersArb,
  });
  const near = nearValidArb(route.fields).map((r) => ({ method: 'POST', ...r }));
  return fc.oneof(wild, near).map((r) => ({ route: route.url, ...r }));
});

/** Header values inject would refuse to send (not what a server ever receives) are dropped. */
function sendable(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([, v]) => /^[\t\x20-\x7e]*$/.test(v)));
}

describe('random requests against every tool route', () => {
  it("never answer 5xx; every answer has the success or the error shape, with the code's status", async () => {
    expect(routes.length).toBeGreaterThanOrEqual(4);
    const seen = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(requestArb, async (req) => {
        const res = await t.app.inject({
          method: req.method as 'POST',
          url: req.route,
          headers: sendable(req.headers as Record<string, string>),
          ...(req.body === undefined ? {} : { payload: req.body }),
        });
        const text = res.body;
        expect(res.statusCode, text).toBeLessThan(500);
        expect(res.headers['x-request-id']).toBeTruthy();
        expect(text).not.toContain(t.root);
        const body = JSON.parse(text) as Record<string, any>;
        if (res.statusCode === 200) {
          expect(Object.keys(body).sort()).toEqual(['result', 'text']);
          expect(typeof body.text).toBe('string');
          seen.set('200', (seen.get('200') ?? 0) + 1);
          return;
        }
        expect(Object.keys(body)).toEqual(['error']);
        expect(Object.keys(body.error).sort()).toEqual(['code', 'details', 'message']);
        expect(typeof body.error.message).toBe('string');
        expect(typeof body.error.details).toBe('object');
        expect(ERROR_STATUS[body.error.code as keyof typeof ERROR_STATUS], body.error.code).toBe(res.statusCode);
        seen.set(body.error.code, (seen.get(body.error.code) ?? 0) + 1);
      }),
      { seed: TEST_SEED, numRuns: 1_500, interruptAfterTimeLimit: 8_000 },
    );
    // The generator reached past validation into the tools (a check on the test itself).
    console.info(`request fuzz: ${JSON.stringify(Object.fromEntries([...seen].sort((a, b) => b[1] - a[1])))}`);
    expect([...seen.keys()]).toEqual(
      expect.arrayContaining(['200', 'INVALID_INPUT', 'PATH_OUTSIDE_WORKSPACE', 'NOT_A_FILE', 'FILE_NOT_READ']),
    );
    const health = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(health.statusCode).toBe(200);
  });

  it('with a token set, answers 401 UNAUTHORIZED to every request without it, and never 5xx', async () => {
    const guarded = await makeTestApp({ config: { token: 's3cret-token' } });
    try {
      await fc.assert(
        fc.asyncProperty(
          requestArb,
          fc.constantFrom(
            'Bearer s3cret-token',
            'Bearer s3cret-toke',
            'bearer s3cret-token',
            'Bearer  s3cret-token',
            's3cret-token',
            undefined,
          ),
          async (req, auth) => {
            const headers = sendable(req.headers as Record<string, string>);
            delete headers.authorization;
            if (auth !== undefined) headers.authorization = auth;
            const res = await guarded.app.inject({
              method: req.method as 'POST',
              url: req.route,
              headers,
              ...(req.body === undefined ? {} : { payload: req.body }),
            });
            expect(res.statusCode, res.body).toBeLessThan(500);
            const body = JSON.parse(res.body) as Record<string, any>;
            // Only the token passes. (A lower-case `bearer` is refused today; RFC 9110 makes scheme
            // names case-insensitive, so either answer is accepted here.)
            if (auth === 'bearer s3cret-token') return;
            if (auth !== 'Bearer s3cret-token') {
              expect(res.statusCode).toBe(401);
              expect(body.error.code).toBe('UNAUTHORIZED');
            } else expect(res.statusCode).not.toBe(401);
          },
        ),
        { seed: TEST_SEED, numRuns: 300, interruptAfterTimeLimit: 3_000 },
      );
    } finally {
      await guarded.close();
    }
  });
});
