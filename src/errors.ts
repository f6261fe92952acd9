/** Every error code of the contract and the HTTP status it answers with. The one table. */
export const ERROR_STATUS = {
  INVALID_INPUT: 400,
  UNAUTHORIZED: 401,
  PATH_OUTSIDE_WORKSPACE: 403,
  PATH_DENIED: 403,
  READ_ONLY: 403,
  FILE_NOT_FOUND: 404,
  NOT_FOUND: 404,
  NOT_A_FILE: 400,
  NOT_A_DIRECTORY: 400,
  WRONG_TOOL: 400,
  FILE_NOT_READ: 409,
  FILE_MODIFIED_SINCE_READ: 409,
  FILE_EXISTS: 409,
  NO_CHANGE: 400,
  STRING_NOT_FOUND: 422,
  MULTIPLE_MATCHES: 422,
  BINARY_FILE: 415,
  FILE_TOO_LARGE: 413,
  INVALID_NOTEBOOK: 422,
  CELL_NOT_FOUND: 404,
  CELL_MOVED: 409,
  PATCH_INVALID: 400,
  CONTEXT_NOT_FOUND: 422,
  PLACEHOLDER_DETECTED: 422,
  ORIGIN_DENIED: 403,
  SECRET_DETECTED: 422,
  UNSUPPORTED_ENCODING: 422,
  PAYLOAD_TOO_LARGE: 413,
  VERSION_NOT_FOUND: 404,
  LOCK_TIMEOUT: 503,
  STORAGE_FULL: 507,
  FS_PERMISSION_DENIED: 403,
  FS_BUSY: 503,
  PRECONDITION_FAILED: 412,
  RANGE_NOT_SATISFIABLE: 416,
  DIRECTORY_NOT_EMPTY: 409,
  KERNEL_UNAVAILABLE: 503,
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

/** A failure the client is told about, in the error shape. */
export class ToolError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;
  /** Extra response headers, e.g. Retry-After for LOCK_TIMEOUT and FS_BUSY. */
  readonly headers: Record<string, string>;
  /** Set once an INTERNAL's cause has been logged, so the error handler does not log it twice. */
  logged = false;

  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ToolError';
    this.code = code;
    this.details = details;
    this.headers = headers;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export function isToolError(err: unknown): err is ToolError {
  return err instanceof ToolError;
}
