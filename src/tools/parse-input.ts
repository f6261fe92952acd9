import type { z } from 'zod';
import { ToolError } from '../errors.js';

/**
 * Tool input validation, the same for every front end (REST, MCP, compat):
 * - `null` for an optional field means the field was left out (model APIs in strict
 *   mode send `null` for every optional they do not use). Decided from the schema, at any
 *   depth (MultiEdit's `edits[].replace_all`), so no tool writes it by hand; a field whose
 *   schema accepts null keeps its null.
 * - Failures are INVALID_INPUT whose details name each field as `body.<path>` (the input is
 *   the REST body), an unknown key by its own name (`body.extra`).
 */

export interface FieldIssue {
  field: string;
  message: string;
}

/** Validates `raw` against a tool's input schema; throws INVALID_INPUT naming the fields. */
export function parseToolInput<I>(schema: z.ZodType<I>, raw: unknown): I {
  const parsed = schema.safeParse(dropNullOptionals(schema, raw));
  if (parsed.success) return parsed.data;
  throw invalidInput(issueFields(parsed.error.issues, 'body'));
}

/** One INVALID_INPUT for these fields, its message listing them. */
export function invalidInput(fields: FieldIssue[]): ToolError {
  const names = fields.map((f) => `${f.field}: ${f.message}`).join('; ');
  return new ToolError('INVALID_INPUT', `Invalid request: ${names}.`, { fields });
}

/** zod issues → fields named `<context>.<path>`; an unknown-keys issue gives one field per key. */
export function issueFields(issues: readonly z.core.$ZodIssue[], context: string): FieldIssue[] {
  return issues.flatMap((issue) => {
    const base = [context, ...issue.path.map(String)];
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [''];
    return keys.map((key) => ({ field: [...base, ...(key ? [key] : [])].join('.'), message: issue.message }));
  });
}

type Def = { type: string; [key: string]: unknown };

const defOf = (schema: z.ZodType): Def => schema._zod.def as unknown as Def;

/** Wrappers whose inner schema sees the same value. */
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

/** A copy of `value` without the `null`s the schema allows to be left out instead. */
export function dropNullOptionals(schema: z.ZodType, value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const def = defOf(schema);
  if (WRAPPERS.has(def.type)) return dropNullOptionals(def.innerType as z.ZodType, value);
  if (def.type === 'pipe') return dropNullOptionals(def.in as z.ZodType, value);
  if (def.type === 'lazy') return dropNullOptionals((def.getter as () => z.ZodType)(), value);
  if (def.type === 'array' && Array.isArray(value)) {
    return value.map((item) => dropNullOptionals(def.element as z.ZodType, item));
  }
  if (def.type === 'object' && !Array.isArray(value)) return dropInObject(schema as z.ZodObject, value as Record<string, unknown>);
  if (def.type === 'union') return dropInUnion(def.options as z.ZodType[], value);
  return value;
}

function dropInObject(schema: z.ZodObject, value: Record<string, unknown>): Record<string, unknown> {
  const shape = schema.shape as Record<string, z.ZodType>;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const field = Object.hasOwn(shape, key) ? shape[key] : undefined;
    if (!field) {
      out[key] = item; // unknown keys are the schema's to refuse (strict) or keep
      continue;
    }
    if (item === null && isOptional(field) && !field.safeParse(null).success) continue;
    out[key] = dropNullOptionals(field, item);
  }
  return out;
}

/** The first option the cleaned value satisfies decides; none: the value as it came. */
function dropInUnion(options: z.ZodType[], value: unknown): unknown {
  for (const option of options) {
    const cleaned = dropNullOptionals(option, value);
    if (option.safeParse(cleaned).success) return cleaned;
  }
  return value;
}

/** A field that may be left out: what zod does with an absent key (optional, default). */
function isOptional(field: z.ZodType): boolean {
  return field.safeParse(undefined).success;
}
