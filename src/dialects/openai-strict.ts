import type { JsonSchema } from '../tools/json-schema.js';

/**
 * A JSON Schema rewritten for OpenAI's strict function calling:
 * - every object has `additionalProperties: false` and lists every property in `required`;
 * - a field that was optional becomes nullable (`anyOf: [..., { type: 'null' }]`): strict mode
 *   sends `null` for an unused optional, which sidefile reads as left out;
 * - only the keywords below remain; bounds, lengths, patterns, formats and defaults move into
 *   the description, where the model still reads them (sidefile enforces them on the call);
 * - `oneOf` becomes `anyOf` (strict mode has no `oneOf`).
 * Pure: takes the REST body schema, returns a new one.
 */
export const STRICT_KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'const',
  'anyOf',
  'description',
  '$defs',
  '$ref',
]);

/** Keywords strict mode rejects, said in words instead. */
const IN_WORDS: Record<string, (value: unknown) => string | null> = {
  minimum: (v) => `minimum ${String(v)}`,
  // The safe-integer bound zod adds to every int says nothing to a model.
  maximum: (v) => (v === Number.MAX_SAFE_INTEGER ? null : `maximum ${String(v)}`),
  exclusiveMinimum: (v) => `greater than ${String(v)}`,
  exclusiveMaximum: (v) => `less than ${String(v)}`,
  multipleOf: (v) => `a multiple of ${String(v)}`,
  minLength: (v) => (v === 1 ? 'not empty' : `at least ${String(v)} characters`),
  maxLength: (v) => `at most ${String(v)} characters`,
  pattern: (v) => `matching the regular expression ${String(v)}`,
  format: (v) => `format ${String(v)}`,
  minItems: (v) => `at least ${String(v)} items`,
  maxItems: (v) => `at most ${String(v)} items`,
  uniqueItems: (v) => (v === true ? 'items unique' : null),
  default: (v) => `default ${JSON.stringify(v)}`,
};

function withNotes(description: unknown, notes: string[]): string | undefined {
  const base = typeof description === 'string' ? description : '';
  if (notes.length === 0) return base || undefined;
  const said = `(${notes.join('; ')})`;
  return base ? `${base} ${said}` : said;
}

function nullable(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.type) && schema.type.includes('null')) return schema;
  const { description, ...rest } = schema;
  if (Array.isArray(rest.anyOf)) {
    const branches = rest.anyOf as JsonSchema[];
    const anyOf = branches.some((b) => b.type === 'null') ? branches : [...branches, { type: 'null' }];
    return { ...rest, anyOf, ...(description === undefined ? {} : { description }) };
  }
  return { anyOf: [rest, { type: 'null' }], ...(description === undefined ? {} : { description }) };
}

function strictObject(node: JsonSchema, out: JsonSchema): void {
  const properties = (node.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((node.required ?? []) as string[]);
  out.type = 'object';
  out.properties = Object.fromEntries(
    Object.entries(properties).map(([name, sub]) => {
      const converted = toStrict(sub);
      return [name, required.has(name) ? converted : nullable(converted)];
    }),
  );
  out.required = Object.keys(properties);
  out.additionalProperties = false;
}

/** One schema node, recursively. */
export function toStrict(node: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  const notes: string[] = [];
  for (const [key, value] of Object.entries(node)) {
    const words = IN_WORDS[key];
    if (words) {
      const note = words(value);
      if (note) notes.push(note);
    }
  }
  const union = (node.anyOf ?? node.oneOf) as JsonSchema[] | undefined;
  if (union) out.anyOf = union.map(toStrict);
  if (node.type !== undefined) out.type = node.type;
  if (node.enum !== undefined) out.enum = node.enum;
  if (node.const !== undefined) out.const = node.const;
  if (node.$ref !== undefined) out.$ref = node.$ref;
  if (node.items !== undefined && !Array.isArray(node.items)) out.items = toStrict(node.items as JsonSchema);
  if (node.type === 'object' || node.properties !== undefined) strictObject(node, out);
  if (node.$defs !== undefined) {
    out.$defs = Object.fromEntries(Object.entries(node.$defs as Record<string, JsonSchema>).map(([k, v]) => [k, toStrict(v)]));
  }
  const description = withNotes(node.description, notes);
  if (description !== undefined) out.description = description;
  return out;
}

/** Object nesting depth of a schema (the root object is level 1). */
export function nestingDepth(node: unknown): number {
  if (node === null || typeof node !== 'object') return 0;
  const schema = node as JsonSchema;
  const own = schema.type === 'object' ? 1 : 0;
  const children: unknown[] = [
    ...Object.values((schema.properties ?? {}) as object),
    ...((schema.anyOf ?? []) as unknown[]),
    ...(schema.items === undefined ? [] : [schema.items]),
    ...Object.values((schema.$defs ?? {}) as object),
  ];
  return own + Math.max(0, ...children.map(nestingDepth));
}
