import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nestingDepth, STRICT_KEYWORDS, toStrict } from '../src/dialects/openai-strict.js';
import { listeningApp, mcpClient, type ListeningApp } from './support/mcp.js';

type Schema = Record<string, any>;

let t: ListeningApp;
beforeAll(async () => {
  t = await listeningApp();
});
afterAll(async () => {
  await t.close();
});

const get = (query: string) => t.request.get(`/v1/tools${query}`);

/** Every schema node under `node`, with where it is. */
function* nodes(node: Schema, where = '$'): Generator<[Schema, string]> {
  yield [node, where];
  for (const [name, sub] of Object.entries((node.properties ?? {}) as Record<string, Schema>)) yield* nodes(sub, `${where}.${name}`);
  for (const [i, sub] of ((node.anyOf ?? []) as Schema[]).entries()) yield* nodes(sub, `${where}|${i}`);
  if (node.items) yield* nodes(node.items as Schema, `${where}[]`);
  for (const [name, sub] of Object.entries((node.$defs ?? {}) as Record<string, Schema>)) yield* nodes(sub, `${where}#${name}`);
}

/** OpenAI strict mode, as the contract states it: the violations found in one schema. */
function strictViolations(schema: Schema): string[] {
  const found: string[] = [];
  if (schema.type !== 'object') found.push('$: the parameters are not an object');
  for (const [node, where] of nodes(schema)) {
    for (const key of Object.keys(node)) if (!STRICT_KEYWORDS.has(key)) found.push(`${where}: keyword ${key}`);
    if (node.type === 'object' || node.properties) {
      if (node.additionalProperties !== false) found.push(`${where}: additionalProperties is not false`);
      const keys = Object.keys(node.properties ?? {});
      if (JSON.stringify([...(node.required ?? [])].sort()) !== JSON.stringify([...keys].sort()))
        found.push(`${where}: not every property is required`);
    }
  }
  if (nestingDepth(schema) > 5) found.push(`$: ${nestingDepth(schema)} levels of nesting`);
  return found;
}

const isNullable = (s: Schema): boolean =>
  s.type === 'null' || (Array.isArray(s.type) && s.type.includes('null')) || (Array.isArray(s.anyOf) && s.anyOf.some(isNullable));

describe('GET /v1/tools?dialect=openai', () => {
  it('passes strict mode for every tool: additionalProperties false, all required, listed keywords only, ≤ 5 levels', async () => {
    const res = await get('?dialect=openai');
    expect(res.status).toBe(200);
    const rest = (await get('')).body.tools;
    expect(res.body.tools.map((tool: Schema) => tool.name)).toEqual(rest.map((tool: Schema) => tool.name));
    for (const [i, tool] of (res.body.tools as Schema[]).entries()) {
      expect(Object.keys(tool).sort()).toEqual(['description', 'name', 'parameters', 'strict', 'type']);
      expect(tool).toMatchObject({ type: 'function', strict: true, description: rest[i].description });
      expect(strictViolations(tool.parameters), tool.name).toEqual([]);
      // Every REST field is there; the optional ones are nullable, the required ones are not.
      const body = rest[i].input_schema as Schema;
      expect(Object.keys(tool.parameters.properties)).toEqual(Object.keys(body.properties));
      for (const name of Object.keys(body.properties)) {
        expect(isNullable(tool.parameters.properties[name]), `${tool.name}.${name}`).toBe(
          !(body.required ?? []).includes(name) || isNullable(body.properties[name]),
        );
      }
    }
  });

  it('says the bounds, lengths and defaults it had to drop in the description', async () => {
    const read = (await get('?dialect=openai')).body.tools.find((tool: Schema) => tool.name === 'Read');
    expect(read.parameters.properties.offset.description).toMatch(/\(minimum 1\)$/);
    expect(read.parameters.properties.file_path.description).toMatch(/\(not empty\)$/);
    const edit = (await get('?dialect=openai')).body.tools.find((tool: Schema) => tool.name === 'Edit');
    expect(edit.parameters.properties.replace_all.description).toMatch(/\(default false\)$/);
  });

  it('accepts a strict-mode body (every unused optional null) as if the optionals were left out, for every tool', async () => {
    const tools = (await get('?dialect=openai')).body.tools as Schema[];
    const write = (rel: string, text: string) => fsp.writeFile(path.join(t.root, rel), text);
    const notebook = JSON.stringify({
      cells: [{ cell_type: 'code', id: 'c1', metadata: {}, source: ['x\n'], outputs: [], execution_count: null }],
      metadata: {},
      nbformat: 4,
      nbformat_minor: 5,
    });
    const bodies: Record<string, { file: string; text: string; read: boolean; body: Schema }> = {
      Read: { file: 'r.txt', text: 'a\nb\n', read: false, body: { file_path: 'r.txt' } },
      Edit: { file: 'e.txt', text: 'a\nb\n', read: true, body: { file_path: 'e.txt', old_string: 'b', new_string: 'B' } },
      Write: { file: 'w.txt', text: 'a\n', read: true, body: { file_path: 'w.txt', content: 'new\n' } },
      NotebookEdit: { file: 'n.ipynb', text: notebook, read: true, body: { notebook_path: 'n.ipynb', cell_id: 'c1', new_source: 'y\n' } },
      ApplyPatch: {
        file: 'p.txt',
        text: 'a\nb\n',
        read: true,
        body: { patch: '*** Begin Patch\n*** Update File: p.txt\n@@\n a\n-b\n+B\n*** End Patch\n' },
      },
    };
    let covered = 0;
    for (const tool of tools) {
      const base = bodies[tool.name];
      if (!base) continue;
      covered += 1;
      const strict = Object.fromEntries(Object.keys(tool.parameters.properties).map((k) => [k, base.body[k] ?? null]));
      const answers = [];
      for (const [n, body] of [base.body, strict].entries()) {
        await write(base.file, base.text);
        const session = `${tool.name}-${n}-${Date.now()}`;
        if (base.read) await t.request.post('/v1/tools/read').set('X-Session-Id', session).send({ file_path: base.file });
        const slug = t.app.tools.find((d) => d.name === tool.name)!.slug;
        const res = await t.request.post(`/v1/tools/${slug}`).set('X-Session-Id', session).send(body);
        answers.push({ status: res.status, body: res.body, disk: await fsp.readFile(path.join(t.root, base.file), 'utf8') });
      }
      expect(answers[0]!.status, tool.name).toBe(200);
      expect(answers[1], tool.name).toEqual(answers[0]);
    }
    expect(covered).toBe(Object.keys(bodies).filter((name) => tools.some((tool) => tool.name === name)).length);
    expect(covered).toBeGreaterThanOrEqual(4);
  });
});

describe('toStrict on shapes the registry will grow into', () => {
  it('handles arrays of objects, unions, nested optionals and definitions', () => {
    const schema = {
      type: 'object',
      properties: {
        edits: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            properties: { old: { type: 'string' }, all: { type: 'boolean', default: false } },
            required: ['old'],
            additionalProperties: false,
          },
        },
        op: { oneOf: [{ type: 'object', properties: { kind: { const: 'a' } }, required: ['kind'] }, { $ref: '#/$defs/b' }] },
        pattern: { type: 'string', pattern: '^x+$', maxLength: 9 },
      },
      required: ['edits'],
      $defs: { b: { type: 'object', properties: { kind: { const: 'b' }, n: { type: 'integer', minimum: 0 } }, required: ['kind'] } },
    };
    const strict = toStrict(schema) as Schema;
    expect(strictViolations(strict)).toEqual([]);
    expect(strict.properties.edits.items.properties.all.anyOf).toEqual([{ type: 'boolean' }, { type: 'null' }]);
    expect(strict.properties.edits.description).toBe('(at least 1 items)');
    expect(strict.properties.op.anyOf).toHaveLength(3);
    expect(strict.properties.pattern.description).toBe('(matching the regular expression ^x+$; at most 9 characters)');
    expect(strict.$defs.b.properties.n).toEqual({ anyOf: [{ type: 'integer' }, { type: 'null' }], description: '(minimum 0)' });
  });

  it('counts nesting levels, so a test can hold the limit of 5', () => {
    let deep: Schema = { type: 'string' };
    for (let i = 0; i < 6; i++) deep = { type: 'object', properties: { x: deep }, required: ['x'] };
    expect(nestingDepth(toStrict(deep))).toBe(6);
    expect(strictViolations(toStrict(deep))).toContain('$: 6 levels of nesting');
  });
});

describe('the other dialects', () => {
  it('anthropic: name, description and the REST input schema', async () => {
    const rest = (await get('')).body.tools;
    const res = await get('?dialect=anthropic');
    expect(res.body.tools).toEqual(
      rest.map((tool: Schema) => ({ name: tool.name, description: tool.description, input_schema: tool.input_schema })),
    );
  });

  it('gemini: one tool holding a function declaration per tool', async () => {
    const rest = (await get('')).body.tools;
    const res = await get('?dialect=gemini');
    expect(res.body.tools).toEqual([
      {
        functionDeclarations: rest.map((tool: Schema) => ({
          name: tool.name,
          description: tool.description,
          parametersJsonSchema: tool.input_schema,
        })),
      },
    ]);
  });

  it('mcp: exactly what /mcp tools/list returns', async () => {
    const client = await mcpClient(t.mcpUrl);
    const { tools } = await client.listTools();
    await client.close();
    expect((await get('?dialect=mcp')).body.tools).toEqual(tools);
  });

  it('keeps the default shape without a dialect, and refuses an unknown one with INVALID_INPUT', async () => {
    const plain = await get('');
    expect(Object.keys(plain.body.tools[0]).sort()).toEqual(['description', 'endpoint', 'input_schema', 'method', 'name', 'title']);
    const bad = await get('?dialect=cohere');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('INVALID_INPUT');
    expect(bad.body.error.details.fields[0].field).toBe('querystring.dialect');
  });
});
