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

/**
 * A tool result made from the REST answer's JSON `{"result":R,"text":T}` (ToolOutput.json:
 * Read's page, made from the file's bytes, maybe on the page worker), never parsed: its
 * `result` and `text` JSON go into the MCP result as they are: the same JSON value, keys in
 * the same order, as JSON.stringify of successResult (escapes may differ, e.g. `\u2192`).
 * `plain()` is that object, for a caller that needs one.
 */
export class SplicedToolResult {
  constructor(
    /** R: structuredContent's JSON. */
    readonly resultJson: Buffer,
    /** T: the text content's JSON string. */
    readonly textJson: Buffer,
    readonly plain: () => CallToolResult,
  ) {}

  /**
   * `head` + `{"content":[…],"structuredContent":R` + `tail`, in one copy: `tail` closes the
   * result (`}`, after more of its keys if any) and whatever `head` opened.
   */
  json(head: Buffer, tail: Buffer): Buffer {
    return Buffer.concat([head, CONTENT_HEAD, this.textJson, STRUCTURED, this.resultJson, tail]);
  }
}

const CONTENT_HEAD = Buffer.from('{"content":[{"type":"text","text":');
const STRUCTURED = Buffer.from('}],"structuredContent":');
const REST_HEAD = Buffer.from('{"result":');
/**
 * Where T starts: a JSON string holds no unescaped quote, so the last `,"text":"` of the REST
 * answer is the one before T (R's own strings cannot hold the sequence either).
 */
const TEXT_KEY = Buffer.from(',"text":"');

/** The tool's success as MCP's result: spliced from its REST JSON when it made one, else built. */
export function toolResult(answer: { result: unknown; text: string; json?: () => string | Buffer }): CallToolResult | SplicedToolResult {
  if (!answer.json) return successResult(answer);
  const raw = answer.json();
  const json = typeof raw === 'string' ? Buffer.from(raw) : raw;
  const at = json.lastIndexOf(TEXT_KEY);
  // Anything but the REST shape (never expected): the object, built as before.
  if (at < 0 || json[json.length - 1] !== 0x7d || !json.subarray(0, REST_HEAD.length).equals(REST_HEAD)) return successResult(answer);
  const resultJson = json.subarray(REST_HEAD.length, at);
  const textJson = json.subarray(at + TEXT_KEY.length - 1, json.length - 1);
  return new SplicedToolResult(resultJson, textJson, () => successResult(answer));
}

/** A sidefile error is a tool result the model reads, not a protocol error. */
export function errorResult(error: ToolError): CallToolResult {
  return {
    content: [{ type: 'text', text: error.message }],
    structuredContent: { error: { code: error.code, message: error.message, details: error.details } },
    isError: true,
  };
}
