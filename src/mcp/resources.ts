import { ErrorCode, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { AppServices } from '../app-services.js';
import { ToolError } from '../errors.js';
import { toToolError } from '../http/error-handler.js';
import { openResolved, type OpenedFile } from '../paths/open-resolved.js';
import { decodeText } from '../text/codec.js';
import { encodingOverrideFor } from '../text/overrides.js';
import { SNIFF_BYTES, sniff, sniffFile, type SniffResult } from '../text/sniff.js';
import { unpagedTooLarge } from '../tools/read/read-loaded.js';
import { MAX_IMAGE_BYTES, MAX_UNPAGED_BYTES } from '../tools/read/format.js';
import type { Log, ResolvedPath } from '../tools/types.js';

/**
 * MCP resources: every workspace file is `file:///<path relative to the root>`.
 * Decisions:
 * - a resource read returns the whole file: text up to Read's unpaged 256 KiB (larger text is
 *   read with the Read tool in pages), images and other binary files as a base64 blob up to
 *   5 MiB (larger ones through the Files API);
 * - a resource read is not a Read: it records no read state and logs no tool call;
 * - `resources/list` lists nothing: a workspace can hold millions of files, and hosts find
 *   files with Glob/LS; the template says how to name any of them.
 */
export const FILE_URI_TEMPLATE = 'file:///{+path}';
const PREFIX = 'file:///';

/**
 * A JSON-RPC error as the SDK sends it (it answers `{ code, message, data }` of what a handler
 * throws). Not an McpError: that prefixes its message with "MCP error <code>:" on the wire.
 */
export function protocolError(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, ...(data === undefined ? {} : { data }) });
}

/** The root-relative path a `file:///` URI names; anything else is a protocol error. */
export function pathOfUri(uri: string): string {
  let path: string;
  try {
    path = uri.startsWith(PREFIX) ? decodeURIComponent(uri.slice(PREFIX.length)) : '';
  } catch {
    path = '';
  }
  if (path === '') {
    throw protocolError(
      ErrorCode.InvalidParams,
      `Resource URIs are ${FILE_URI_TEMPLATE} with a path relative to the workspace root; got "${uri.slice(0, 200)}".`,
    );
  }
  return path;
}

/** The URI of a root-relative path (`{+path}` expansion: `/` kept, the rest percent-encoded). */
export function uriOfPath(relative: string): string {
  return PREFIX + relative.split('/').map(encodeURIComponent).join('/');
}

/** A sidefile error as a JSON-RPC error: resources have no `isError` result. */
export function resourceError(err: unknown, log: Log): Error {
  if (typeof (err as { code?: unknown }).code === 'number') return err as Error;
  const error: ToolError = toToolError(err);
  if (error.code === 'INTERNAL') {
    log.error({ err }, 'unexpected error in a resource request');
    return protocolError(ErrorCode.InternalError, error.message);
  }
  // -32002 is the MCP specification's "resource not found".
  const code = error.code === 'FILE_NOT_FOUND' ? -32002 : ErrorCode.InvalidParams;
  return protocolError(code, error.message, { code: error.code, details: error.details });
}

/** Resolves a resource URI through the path policy (checks, read deny globs). */
export function resolveUri(services: AppServices, uri: string): Promise<ResolvedPath> {
  return services.resolve(pathOfUri(uri), 'read');
}

/** Reads `length` bytes from the start of an open file. */
async function readHead(opened: OpenedFile, length: number): Promise<Buffer> {
  const bytes = Buffer.alloc(length);
  const { bytesRead } = await opened.handle.read(bytes, 0, length, 0);
  return bytes.subarray(0, bytesRead);
}

/** Images and other binary files up to this size are a resource's base64 `blob`. */
export const MAX_BLOB_BYTES = MAX_IMAGE_BYTES;

/** A binary file past the blob bound: the Files API streams it whole. */
function blobTooLarge(path: string, size: number): ToolError {
  return new ToolError(
    'FILE_TOO_LARGE',
    `${path} is ${size} bytes, over the 5 MiB a resource carries as a blob. Download it with GET /v1/files/${path}.`,
    { size, max_size: MAX_BLOB_BYTES },
  );
}

/** What a whole-file read of this file may return; throws for what it may not. */
async function loadWhole(opened: OpenedFile): Promise<{ data: Buffer; kind: SniffResult }> {
  const path = opened.target.relative;
  const size = opened.stat.size;
  // Security: bounded before reading, so a huge file is never pulled into memory.
  if (size > MAX_UNPAGED_BYTES) {
    const kind = sniff(await readHead(opened, SNIFF_BYTES));
    if (kind.kind === 'text') throw unpagedTooLarge(path, size);
    if (size > MAX_BLOB_BYTES) throw blobTooLarge(path, size);
  }
  const data = await readHead(opened, size);
  // Read's rule for a whole file: a NUL past the sniffed head makes it binary too (sniffFile).
  return { data, kind: sniffFile(data) };
}

/** `resources/read`: the decoded text of a text file, or an image as a base64 blob. */
export async function readResource(services: AppServices, uri: string): Promise<ReadResourceResult> {
  const opened = await openResolved(services.root, await resolveUri(services, uri));
  try {
    const path = opened.target.relative;
    const { data, kind } = await loadWhole(opened);
    if (kind.kind === 'image') return { contents: [{ uri, mimeType: kind.mediaType, blob: data.toString('base64') }] };
    // Resources read bytes as they are: a binary file Read refuses is a blob here.
    if (kind.kind === 'binary') return { contents: [{ uri, mimeType: 'application/octet-stream', blob: data.toString('base64') }] };
    const decoded = decodeText(data, encodingOverrideFor(services.settings.encodings, path));
    const mimeType = path.endsWith('.ipynb') ? 'application/x-ipynb+json' : 'text/plain';
    return { contents: [{ uri, mimeType, text: decoded.text }] };
  } finally {
    await opened.handle.close();
  }
}
