import { ErrorCode, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { AppServices } from '../app-services.js';
import { ToolError } from '../errors.js';
import { toToolError } from '../http/error-handler.js';
import { openResolved, type OpenedFile } from '../paths/open-resolved.js';
import { decodeText } from '../text/codec.js';
import { encodingOverrideFor } from '../text/overrides.js';
import { SNIFF_BYTES, sniff, sniffFile, type SniffResult } from '../text/sniff.js';
import { DEFAULT_LIMIT, HASH_LIMIT_BYTES, MAX_IMAGE_BYTES, MAX_UNPAGED_BYTES, humanSize } from '../tools/read/format.js';
import { fitPage } from '../tools/read/fit-page.js';
import { SLICED_SCAN_BYTES } from '../tools/read/sliced-scan.js';
import { pageOfBytes, pageOfLargeBytes, textOutput } from '../tools/read/text-file.js';
import type { Log, ResolvedPath } from '../tools/types.js';

/**
 * MCP resources: every workspace file is `file:///<path relative to the root>`.
 * Decisions:
 * - a resource read returns the whole file: text up to Read's unpaged 256 KiB, images and
 *   other binary files as a base64 blob up to 5 MiB (larger ones through the Files API);
 * - a larger text file (up to 64 MiB) answers as Read does without a range: the first lines that
 *   fit (at most 2,000 lines, 100,000 characters), then a second content, the note of how far
 *   that goes and how to read on with the Read tool (PARTIAL_META on both says the lines);
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

/** Text files up to this size are paged as Read pages them (loaded whole, as Read loads them). */
export const MAX_PAGED_TEXT_BYTES = HASH_LIMIT_BYTES;

/** A text file too large to page here: the Read tool streams it. */
function textTooLarge(path: string, size: number): ToolError {
  return new ToolError(
    'FILE_TOO_LARGE',
    `${path} is ${humanSize(size)}, over the 64 MiB a resource read pages. Call the Read tool instead: it answers the first ` +
      `lines that fit and the offset to continue from (or read only the lines you need with offset and limit).`,
    { size, max_size: MAX_PAGED_TEXT_BYTES },
  );
}

/** The whole file, when a resource read may load it; throws for what it may not. */
async function load(opened: OpenedFile): Promise<{ data: Buffer; kind: SniffResult }> {
  const path = opened.target.relative;
  const size = opened.stat.size;
  // Security: bounded before reading, so a huge file is never pulled into memory.
  if (size > MAX_UNPAGED_BYTES) {
    const kind = sniff(await readHead(opened, SNIFF_BYTES));
    if (kind.kind === 'text' && size > MAX_PAGED_TEXT_BYTES) throw textTooLarge(path, size);
    if (kind.kind !== 'text' && size > MAX_BLOB_BYTES) throw blobTooLarge(path, size);
  }
  const data = await readHead(opened, size);
  // Read's rule for a whole file: a NUL past the sniffed head makes it binary too (sniffFile).
  return { data, kind: sniffFile(data) };
}

/** `_meta` key of a partial text resource: the lines its first content holds. */
export const PARTIAL_META = 'sidefile/partial';

/** `resources/read`: the decoded text of a text file (its first page past 256 KiB), or a base64 blob. */
export async function readResource(services: AppServices, uri: string): Promise<ReadResourceResult> {
  const opened = await openResolved(services.root, await resolveUri(services, uri));
  try {
    const path = opened.target.relative;
    const { data, kind } = await load(opened);
    if (kind.kind === 'image') return { contents: [{ uri, mimeType: kind.mediaType, blob: data.toString('base64') }] };
    // Resources read bytes as they are: a binary file Read refuses is a blob here. One whose head
    // looked like text (so loaded past the blob bound) and that is binary further on is refused.
    if (kind.kind === 'binary') {
      if (data.length > MAX_BLOB_BYTES) throw blobTooLarge(path, data.length);
      return { contents: [{ uri, mimeType: 'application/octet-stream', blob: data.toString('base64') }] };
    }
    const override = encodingOverrideFor(services.settings.encodings, path);
    const mimeType = path.endsWith('.ipynb') ? 'application/x-ipynb+json' : 'text/plain';
    if (data.length <= MAX_UNPAGED_BYTES) return { contents: [{ uri, mimeType, text: decodeText(data, override).text }] };
    return await firstPage(uri, mimeType, path, data, override, opened);
  } finally {
    await opened.handle.close();
  }
}

/** A text file over 256 KiB: Read's page without a range, and its closing line as a note. */
async function firstPage(
  uri: string,
  mimeType: string,
  path: string,
  data: Buffer,
  override: string | undefined,
  opened: OpenedFile,
): Promise<ReadResourceResult> {
  const { stat, target } = opened;
  const version = `${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}:${stat.ino}`;
  // A file of several MiB is scanned in slices (no long turn of the event loop), as Read does.
  const page =
    data.length >= SLICED_SCAN_BYTES
      ? await pageOfLargeBytes(data, override, 1, DEFAULT_LIMIT, target.real, version)
      : pageOfBytes(data, override, 1, DEFAULT_LIMIT);
  const out = textOutput(path, fitPage(page, true), undefined, false);
  const { file } = out.result;
  const meta = { [PARTIAL_META]: { start_line: file.start_line, num_lines: file.num_lines, total_lines: file.total_lines } };
  const contents: ReadResourceResult['contents'] = [{ uri, mimeType, text: file.content, _meta: meta }];
  // Read's closing line: how far the page goes and how to read on (none when the page is the whole file).
  const at = out.text.lastIndexOf('\n(');
  if (at >= 0) contents.push({ uri, mimeType: 'text/plain', text: out.text.slice(at + 1), _meta: meta });
  return { contents };
}
