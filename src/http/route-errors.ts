import { ERROR_CODES, type ErrorCode } from '../errors.js';
import type { ToolDefinition } from '../tools/types.js';

/**
 * The error codes a tool route can answer (for the OpenAPI document, which lists exactly
 * those). Every tool: the body and path checks; write tools: the write pipeline's; then the
 * tool's own. A tool not listed here (and declaring no `errors`) is documented with every code.
 */
const EVERY_TOOL: readonly ErrorCode[] = [
  'INVALID_INPUT',
  'PAYLOAD_TOO_LARGE',
  'PATH_OUTSIDE_WORKSPACE',
  'PATH_DENIED',
  'NOT_A_FILE',
  'FS_PERMISSION_DENIED',
  'FS_BUSY',
];

const EVERY_WRITE: readonly ErrorCode[] = [
  'READ_ONLY',
  'FILE_NOT_READ',
  'FILE_MODIFIED_SINCE_READ',
  'FILE_TOO_LARGE',
  'SECRET_DETECTED',
  'UNSUPPORTED_ENCODING',
  'LOCK_TIMEOUT',
  'STORAGE_FULL',
];

const OWN: Record<string, readonly string[]> = {
  Read: ['FILE_NOT_FOUND', 'BINARY_FILE', 'FILE_TOO_LARGE', 'UNSUPPORTED_ENCODING', 'INVALID_NOTEBOOK'],
  Edit: ['FILE_NOT_FOUND', 'WRONG_TOOL', 'FILE_EXISTS', 'NO_CHANGE', 'STRING_NOT_FOUND', 'MULTIPLE_MATCHES', 'PLACEHOLDER_DETECTED'],
  MultiEdit: ['FILE_NOT_FOUND', 'WRONG_TOOL', 'FILE_EXISTS', 'NO_CHANGE', 'STRING_NOT_FOUND', 'MULTIPLE_MATCHES', 'PLACEHOLDER_DETECTED'],
  Write: ['INVALID_NOTEBOOK'],
  NotebookEdit: ['FILE_NOT_FOUND', 'WRONG_TOOL', 'INVALID_NOTEBOOK', 'CELL_NOT_FOUND', 'CELL_MOVED'],
  NotebookRun: ['FILE_NOT_FOUND', 'WRONG_TOOL', 'INVALID_NOTEBOOK', 'CELL_NOT_FOUND', 'CELL_MOVED', 'KERNEL_UNAVAILABLE'],
  ApplyPatch: [
    'FILE_NOT_FOUND',
    'FILE_EXISTS',
    'WRONG_TOOL',
    'NO_CHANGE',
    'PATCH_INVALID',
    'CONTEXT_NOT_FOUND',
    'PLACEHOLDER_DETECTED',
    'INVALID_NOTEBOOK',
  ],
  Restore: ['VERSION_NOT_FOUND'],
};

export function toolErrorCodes(tool: Pick<ToolDefinition, 'name' | 'access'> & { errors?: readonly string[] }): ErrorCode[] {
  const own = tool.errors ?? OWN[tool.name];
  if (own === undefined) return [...ERROR_CODES];
  const listed = new Set<string>([...EVERY_TOOL, ...(tool.access === 'write' ? EVERY_WRITE : []), ...own]);
  // Codes not (yet) in the table (another part of the contract) are left out.
  return ERROR_CODES.filter((code) => listed.has(code));
}
