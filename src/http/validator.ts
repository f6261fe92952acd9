import type { FastifySchemaCompiler } from 'fastify';
import type { FastifyRouteSchemaDef, FastifyValidationResult } from 'fastify/types/schema.js';
import type { z } from 'zod';
import { invalidInput, issueFields } from '../tools/parse-input.js';
import { sessionHeaders } from './session.js';

/**
 * Fastify's validator for the non-tool routes' zod schemas (querystrings, params, headers):
 * the same issue mapper as tool input, fields named `<part>.<path>` (`querystring.file_path`).
 */
export const zodValidator: FastifySchemaCompiler<z.ZodType> =
  ({ schema, httpPart }) =>
  (data) => {
    const parsed = schema.safeParse(data);
    if (parsed.success) return { value: parsed.data };
    return { error: invalidInput(issueFields(parsed.error.issues, httpPart ?? 'body')) };
  };

/**
 * For a body that callTool validates (once, with the null rule: null is a left-out optional): Fastify keeps the
 * schema for the OpenAPI document but lets the value through as it came. The same for
 * sessionHeaders: the handler's sessionOf checks X-Session-Id (a zod pass over every header
 * and a copy of them per request was a measurable share of a 4 KB Read).
 */
export function bodyForCallTool<S>(route: FastifyRouteSchemaDef<S>): FastifyValidationResult {
  if (route.httpPart === 'body' || (route.httpPart === 'headers' && route.schema === sessionHeaders)) return passThrough;
  return zodValidator(route as unknown as FastifyRouteSchemaDef<z.ZodType>);
}

const passThrough = (data: unknown): { value: unknown } => ({ value: data });
