import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolError } from '../errors.js';

interface ImageFile {
  base64: string;
  media_type: string;
}

/** Read of an image: `{ type: 'image', file: { base64, media_type } }`. */
function imageOf(result: unknown): ImageFile | null {
  const r = result as { type?: unknown; file?: Partial<ImageFile> } | null;
  if (r?.type !== 'image' || typeof r.file?.base64 !== 'string' || typeof r.file.media_type !== 'string') return null;
  return { base64: r.file.base64, media_type: r.file.media_type };
}

/** StructuredContent = the REST result, text content = the REST text, images as image content. */
export function successResult(answer: { result: unknown; text: string }): CallToolResult {
  const content: CallToolResult['content'] = [{ type: 'text', text: answer.text }];
  const image = imageOf(answer.result);
  if (image) content.push({ type: 'image', data: image.base64, mimeType: image.media_type });
  return { content, structuredContent: answer.result as Record<string, unknown> };
}

/** A sidefile error is a tool result the model reads, not a protocol error. */
export function errorResult(error: ToolError): CallToolResult {
  return {
    content: [{ type: 'text', text: error.message }],
    structuredContent: { error: { code: error.code, message: error.message, details: error.details } },
    isError: true,
  };
}
