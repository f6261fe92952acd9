import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parse } from 'yaml';

/**
 * sandboxd's FilesystemService v1 OpenAPI document (vendored: test/fixtures/sandboxd/README.md)
 * and a check that an answer validates against it. Statuses sandboxd does not declare are
 * sidefile's additions and must be among those the docs list.
 */
const DOC_FILE = new URL('../fixtures/sandboxd/filesystem.yaml', import.meta.url);
export const SANDBOXD_DOC = parse(readFileSync(DOC_FILE, 'utf8')) as {
  paths: Record<string, Record<string, { responses: Record<string, { $ref?: string; content?: Record<string, { schema: unknown }> }> }>>;
  components: { responses: Record<string, { content?: Record<string, { schema: unknown }> }> };
};

/** Statuses sidefile answers beyond sandboxd's declared ones (docs/files-api.md lists them). */
export const SIDEFILE_ADDED_STATUSES = [206, 304, 400, 401, 403, 404, 409, 412, 413, 415, 416, 422, 500, 503, 507];

// ajv-draft-04 is CommonJS whose module.exports is the class; OpenAPI 3.0 schemas are draft-04-like.
const Ajv = createRequire(import.meta.url)('ajv-draft-04') as typeof import('ajv-draft-04').default;
const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema(SANDBOXD_DOC as object, 'sandboxd');

export interface Answer {
  status: number;
  contentType: string | null;
  body: unknown;
}

/**
 * Throws unless the answer conforms: a declared status's schema for its media type validates the
 * body (`date-time` checked too); an undeclared status is one of sidefile's listed additions,
 * and any JSON error body still carries sandboxd's `Error` (`code`, `message`).
 */
export function assertConforms(route: '/files/{path}' | '/health' | '/metadata', method: string, answer: Answer): void {
  const op = SANDBOXD_DOC.paths[route]?.[method.toLowerCase()];
  // sandboxd's GET also serves HEAD (Go's mux): its statuses are GET's, with no body.
  const operation = op ?? (method === 'HEAD' ? SANDBOXD_DOC.paths[route]?.get : undefined);
  if (!operation) throw new Error(`sandboxd has no ${method} ${route}`);
  let declared = operation.responses[String(answer.status)];
  if (declared?.$ref) declared = SANDBOXD_DOC.components.responses[declared.$ref.split('/').pop()!];
  const type = answer.contentType?.split(';')[0]?.trim() ?? null;
  if (!declared) {
    if (!SIDEFILE_ADDED_STATUSES.includes(answer.status))
      throw new Error(`${method} ${route}: status ${answer.status} is neither sandboxd's nor listed`);
    if (type === 'application/json')
      validate({ $ref: 'sandboxd#/components/schemas/Error' }, answer.body, `${method} ${route} ${answer.status}`);
    return;
  }
  if (method === 'HEAD' || !declared.content) return;
  const media = type === null ? undefined : declared.content[type];
  if (!media) throw new Error(`${method} ${route} ${answer.status}: sandboxd declares no ${type} body`);
  const schema = media.schema as { $ref?: string; format?: string };
  if (schema.format === 'binary') return;
  validate(schema.$ref ? { $ref: `sandboxd${schema.$ref}` } : schema, answer.body, `${method} ${route} ${answer.status}`);
}

function validate(schema: object, body: unknown, where: string): void {
  const check = ajv.compile(schema);
  if (!check(body)) throw new Error(`${where}: ${ajv.errorsText(check.errors)} in ${JSON.stringify(body)}`);
  for (const entry of (body as { entries?: Array<{ modified_at?: string }> }).entries ?? []) {
    if (!/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(entry.modified_at ?? ''))
      throw new Error(`${where}: modified_at is not a date-time`);
  }
}
