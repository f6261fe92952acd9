import { z } from 'zod';
import { ERROR_CODES, ERROR_STATUS, type ErrorCode } from '../errors.js';
import { errorExample } from './error-examples.js';

/** The error shape, shared by every route's error responses. */
export const errorResponseSchema = z
  .object({
    error: z
      .object({
        code: z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]).describe('Stable error code.'),
        message: z.string().describe('What went wrong and what to do next, written for the model.'),
        details: z.record(z.string(), z.unknown()).describe('Machine-readable specifics, e.g. `matches` or `fields`.'),
      })
      .describe('The failure.'),
  })
  .describe('Every failure has this shape.');

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid input, wrong tool, not a file or no change',
  401: 'Missing or wrong bearer token',
  403: 'Path outside the workspace, denied, read-only mode or file system permission',
  404: 'No such file, route, cell or version',
  409: 'The file was not read, or changed since it was read; a folder not empty',
  412: 'A precondition (If-Match / If-None-Match) does not hold: nothing changed',
  413: 'File or request body too large',
  415: 'Binary file',
  416: 'Range outside the file',
  422: 'The request cannot be applied to this file',
  500: 'Unexpected failure (generic message)',
  503: 'Lock timeout, busy file system or no Jupyter kernel: retry after Retry-After seconds',
  507: 'Storage full: nothing changed',
};

/**
 * Error responses for a route's `response` schema, keyed by status: each lists exactly the codes
 * that status can carry on that route (as the `code` enum) with one example answer per code.
 * Every route may answer INTERNAL; every route but the public health checks also
 * ORIGIN_DENIED and UNAUTHORIZED (a token is set).
 */
export function errorResponses(codes: readonly ErrorCode[], options: { public?: boolean } = {}): Record<number, z.ZodType> {
  const all = new Set<ErrorCode>([...codes, 'INTERNAL', ...(options.public ? [] : (['ORIGIN_DENIED', 'UNAUTHORIZED'] as const))]);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of ERROR_CODES.filter((c) => all.has(c))) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, list]) => [status, errorSchemaFor(list, `${STATUS_TEXT[status] ?? 'Error'}: ${list.join(', ')}.`)]),
  );
}

/** One schema per list of codes: routes that answer the same codes share it (start-up time). */
const schemas = new Map<string, z.ZodType>();

function errorSchemaFor(codes: ErrorCode[], description: string): z.ZodType {
  const key = `${codes.join(',')}\n${description}`;
  let schema = schemas.get(key);
  if (schema === undefined) {
    schema = buildErrorSchema(codes, description);
    schemas.set(key, schema);
  }
  return schema;
}

function buildErrorSchema(codes: ErrorCode[], description: string): z.ZodType {
  return z
    .object({
      error: z
        .object({
          code: z.enum(codes as [ErrorCode, ...ErrorCode[]]).describe('Stable error code.'),
          message: z.string().describe('What went wrong and what to do next, written for the model.'),
          details: z.record(z.string(), z.unknown()).describe('Machine-readable specifics, e.g. `matches` or `fields`.'),
        })
        .describe('The failure.'),
    })
    .meta({ description, examples: codes.map(errorExample) });
}
