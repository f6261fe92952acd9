import { z } from 'zod';

/**
 * Cleans the generated OpenAPI document for its readers. Zod gives every `.int()` the bounds
 * ±9007199254740991 (Number.MAX_SAFE_INTEGER); they say nothing to a reader and Swagger UI
 * shows them as example values, so they are dropped.
 */
const SAFE = Number.MAX_SAFE_INTEGER;

export function dropSafeIntegerBounds<T>(node: T): T {
  if (Array.isArray(node)) {
    for (const item of node) dropSafeIntegerBounds(item);
  } else if (node !== null && typeof node === 'object') {
    const record = node as Record<string, unknown>;
    if (record.maximum === SAFE) delete record.maximum;
    if (record.minimum === -SAFE) delete record.minimum;
    for (const value of Object.values(record)) dropSafeIntegerBounds(value);
  }
  return node;
}

type Transformed = { schema: unknown; url: string };

/**
 * Copies `examples` from the zod schemas' metadata (`.meta({ examples })`) into the generated
 * request body and response schemas: the zod transform reads its own registries, not that one.
 */
export function withExamples<T extends Transformed>(input: { schema: unknown }, output: T): T {
  const source = input.schema as { body?: unknown; response?: Record<string, unknown> } | undefined;
  const target = output.schema as { body?: Record<string, unknown>; response?: Record<string, Record<string, unknown>> } | undefined;
  const examplesOf = (schema: unknown): unknown[] | undefined =>
    schema instanceof z.ZodType ? (z.globalRegistry.get(schema)?.examples as unknown[] | undefined) : undefined;
  const body = examplesOf(source?.body);
  if (body && target?.body) target.body.examples = body;
  for (const [status, schema] of Object.entries(source?.response ?? {})) {
    const examples = examplesOf(schema);
    if (examples && target?.response?.[status]) target.response[status].examples = examples;
  }
  return output;
}
