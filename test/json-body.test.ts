import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import Fastify from 'fastify';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installJsonBody, plainJson } from '../src/http/json-body.js';
import { makeTestApp, readFully, type TestApp } from './helpers.js';

/** secure-json-parse's own tests for the two keys (fastify's JSON parser, node_modules/secure-json-parse). */
const SUSPECT_PROTO =
  /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;
const SUSPECT_CONSTRUCTOR =
  /"(?:c|\\u0063)(?:o|\\u006[Ff])(?:n|\\u006[Ee])(?:s|\\u0073)(?:t|\\u0074)(?:r|\\u0072)(?:u|\\u0075)(?:c|\\u0063)(?:t|\\u0074)(?:o|\\u006[Ff])(?:r|\\u0072)"\s*:/;

/** A JSON text whose keys may be the two names, some characters written as `\u` escapes. */
const escapedKey = fc
  .tuple(fc.constantFrom('__proto__', 'constructor', 'content', 'prototype'), fc.array(fc.boolean(), { minLength: 11, maxLength: 11 }))
  .map(([key, esc]) => [...key].map((ch, i) => (esc[i] ? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}` : ch)).join(''));
const jsonText = fc
  .tuple(fc.array(fc.tuple(escapedKey, fc.jsonValue({ maxDepth: 2 })), { maxLength: 4 }), fc.constantFrom('', ' ', '\n'))
  .map(([members, space]) => `{${members.map(([k, v]) => `"${k}"${space}:${JSON.stringify(v)}`).join(',')}}`);

describe('the JSON body fast path (src/http/json-body.ts)', () => {
  it('never skips a text either of secure-json-parse checks would look into (4,000 cases)', () => {
    fc.assert(
      fc.property(jsonText, (text) => {
        if (SUSPECT_PROTO.test(text) || SUSPECT_CONSTRUCTOR.test(text)) expect(plainJson(text)).toBe(false);
      }),
      { numRuns: 4000 },
    );
  });

  it('takes the plain path for an ordinary tool body, and not for an empty one', () => {
    expect(plainJson(JSON.stringify({ file_path: 'a.txt', content: 'const x = "constructor";\n' }))).toBe(true);
    expect(plainJson('')).toBe(false);
    expect(plainJson(JSON.stringify({ content: '\\u00e9' }))).toBe(false);
  });
});

describe('the parser itself', () => {
  it.each([
    ['{"a":1,"__proto__":{"x":1}}', 400],
    ['{"a":1,"\\u005f_proto__":{"x":1}}', 400],
    ['{"constructor":{"prototype":{"x":1}}}', 400],
    ['{"a":', 400],
    ['{"a":"constructor"}', 200],
    ['{"a":"\\u00e9"}', 200],
  ])('answers %s with %i, as Fastify does', async (body, status) => {
    const app = Fastify();
    installJsonBody(app);
    app.post('/echo', async (request) => request.body);
    const res = await app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload: body });
    expect(res.statusCode).toBe(status);
    if (status === 200) expect(res.json()).toEqual(JSON.parse(body));
    else expect(res.json().code).toBe('FST_ERR_CTP_INVALID_JSON_BODY');
    await app.close();
  });
});

describe('a body past 1 MiB, parsed on the worker thread', () => {
  const pad = 'x'.repeat(2 * 1024 * 1024);
  it.each([
    [`{"pad":"${pad}","__proto__":{"x":1}}`, 400],
    [`{"pad":"${pad}","\\u005f_proto__":{"x":1}}`, 400],
    [`{"pad":"${pad}","constructor":{"prototype":{"x":1}}}`, 400],
    [`{"pad":"${pad}",`, 400],
    [`\ufeff{"pad":"${pad}","a":"constructor"}`, 200],
    [`{"pad":"${pad}","a":"\\u00e9 é"}`, 200],
  ])('answers as Fastify does (%#)', async (body, status) => {
    const app = Fastify({ bodyLimit: 8 * 1024 * 1024 });
    installJsonBody(app);
    app.post('/echo', async (request) => request.body);
    const res = await app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload: body });
    expect(res.statusCode).toBe(status);
    if (status === 200) expect(res.json()).toEqual(JSON.parse(body.replace(/^\ufeff/, '')));
    else expect(res.json().code).toBe('FST_ERR_CTP_INVALID_JSON_BODY');
    await app.close();
  });
});

describe('tool bodies over HTTP keep the prototype-poisoning refusal', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await makeTestApp();
    await writeFile(path.join(t.root, 'a.txt'), 'old\n');
    await readFully(t, 'a.txt');
  });
  afterEach(async () => t.close());

  const send = (body: string) =>
    t.request.post('/v1/tools/write').set('X-Session-Id', 'default').set('Content-Type', 'application/json').send(body);

  it.each([
    ['a __proto__ key', '{"file_path":"a.txt","content":"new\\n","__proto__":{"x":1}}'],
    ['a __proto__ key written with \\u escapes', '{"file_path":"a.txt","content":"new\\n","\\u005f_proto\\u005f_":{"x":1}}'],
    ['a constructor.prototype key', '{"file_path":"a.txt","content":"new\\n","constructor":{"prototype":{"x":1}}}'],
    ['an empty body', ''],
    ['a body that is not JSON', '{"file_path":"a.txt",'],
  ])('refuses %s with INVALID_INPUT and writes nothing', async (_name, body) => {
    const res = await send(body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INVALID_INPUT');
    expect(await readFile(path.join(t.root, 'a.txt'), 'utf8')).toBe('old\n');
  });

  it('writes a content naming constructor and holding a \\u text exactly', async () => {
    const content = 'const c = "constructor";\nconst u = "\\u00e9";\n';
    const res = await send(JSON.stringify({ file_path: 'a.txt', content }));
    expect(res.status).toBe(200);
    expect(await readFile(path.join(t.root, 'a.txt'), 'utf8')).toBe(content);
  });
});
