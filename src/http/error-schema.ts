import { z } from 'zod';
import { ERROR_CODES, ERROR_STATUS, type ErrorCode } from '../errors.js';

/** SPEC §4 error shape, shared by every route's error responses. */
export const errorResponseSchema = z
  .object({
    error: z
      .object({
        code: z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]).describe('Stable error code (SPEC §4 table).'),
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
  409: 'The file was not read, or changed since it was read',
  413: 'File or request body too large',
  415: 'Binary file',
  422: 'The request cannot be applied to this file',
  500: 'Unexpected failure (generic message)',
  503: 'Lock timeout or busy file system: retry after Retry-After seconds',
  507: 'Storage full: nothing changed',
};

/** Error responses for the given codes, keyed by status, for a route's `response` schema. */
export function errorResponses(codes: readonly ErrorCode[]): Record<number, z.ZodType> {
  const statuses = new Set<number>([...codes, 'INVALID_INPUT', 'UNAUTHORIZED', 'INTERNAL'].map((c) => ERROR_STATUS[c as ErrorCode]));
  return Object.fromEntries(
    [...statuses].sort().map((status) => [status, errorResponseSchema.describe(STATUS_TEXT[status] ?? 'Error')]),
  );
}
