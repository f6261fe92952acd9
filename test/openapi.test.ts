import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPENAPI_FILE, renderOpenApi } from '../scripts/openapi-doc.js';

type Operation = { summary?: string; operationId?: string; security?: unknown[]; responses: Record<string, unknown> };

describe('OpenAPI document', () => {
  it('is committed and not stale (run `npm run openapi` after a schema change)', async () => {
    const committed = readFileSync(OPENAPI_FILE, 'utf8');
    expect(committed).toBe(await renderOpenApi());
  });

  it('gives every operation a summary, a unique operationId and its security', async () => {
    const doc = JSON.parse(await renderOpenApi());
    const ids = new Set<string>();
    for (const [url, item] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
      for (const [method, op] of Object.entries(item)) {
        expect(op.summary, `${method} ${url}`).toBeTruthy();
        expect(op.operationId, `${method} ${url}`).toBeTruthy();
        expect(ids.has(op.operationId!)).toBe(false);
        ids.add(op.operationId!);
        const isPublic = ['/healthz', '/readyz', '/v1/health', '/v1/metadata'].includes(url);
        expect(op.security, `${method} ${url}`).toEqual(isPublic ? [] : [{ bearerAuth: [] }]);
        // The Files API's PUT and DELETE answer 204 (sandboxd's contract); everything else 200.
        expect(Object.keys(op.responses), `${method} ${url}`).toContain(
          url === '/v1/files/{path}' && ['put', 'delete'].includes(method) ? '204' : '200',
        );
      }
    }
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.servers.map((s: { url: string }) => s.url)).toEqual(['/', 'http://127.0.0.1:8080']);
  });

  it('describes every field of every request and response body for a reader of the docs', async () => {
    const doc = JSON.parse(await renderOpenApi());
    const missing: string[] = [];
    const walk = (schema: Record<string, unknown> | undefined, where: string): void => {
      if (!schema || typeof schema !== 'object') return;
      for (const [name, sub] of Object.entries((schema.properties ?? {}) as Record<string, Record<string, unknown>>)) {
        if (!sub.description && !sub.$ref) missing.push(`${where}.${name}`);
        walk(sub, `${where}.${name}`);
      }
      for (const key of ['items', 'additionalProperties']) walk(schema[key] as Record<string, unknown>, `${where}[${key}]`);
      for (const key of ['anyOf', 'oneOf', 'allOf']) {
        ((schema[key] ?? []) as Array<Record<string, unknown>>).forEach((s, i) => walk(s, `${where}|${i}`));
      }
    };
    for (const [url, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(item)) {
        walk(op.requestBody?.content?.['application/json']?.schema, `${method} ${url} body`);
        for (const [status, res] of Object.entries(op.responses as Record<string, any>)) {
          walk(res.content?.['application/json']?.schema, `${method} ${url} ${status}`);
        }
        for (const param of op.parameters ?? []) if (!param.description) missing.push(`${method} ${url} ${param.name}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
