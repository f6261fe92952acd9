import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { errorResponseSchema } from '../http/error-schema.js';
import { inputJsonSchema, resultJsonSchema, type JsonSchema } from '../tools/json-schema.js';
import type { ToolDefinition } from '../tools/types.js';

/** Tools that only look (readOnlyHint); every other tool writes. */
const READ_ONLY_TOOLS = new Set(['Read', 'Glob', 'Grep', 'LS']);

const ERROR_SCHEMA = (() => {
  const schema = z.toJSONSchema(errorResponseSchema, { io: 'output' }) as JsonSchema;
  delete schema.$schema;
  return schema;
})();

/**
 * An object schema admitting both the REST `result` and the `{ error }` shape, because
 * the SDK's client validates `structuredContent` of error results against it too. Definitions
 * are hoisted to the root so `#/$defs/...` references still resolve.
 */
export function outputSchemaOf(tool: Pick<ToolDefinition, 'result'>): Tool['outputSchema'] & JsonSchema {
  const { $defs, ...result } = resultJsonSchema(tool);
  return {
    type: 'object',
    anyOf: [result, ERROR_SCHEMA],
    ...($defs === undefined ? {} : { $defs }),
  };
}

/** The write tools' flavour of annotations; Write replaces whole files, so repeating it is harmless. */
function annotationsOf(tool: ToolDefinition): NonNullable<Tool['annotations']> {
  const readOnly = READ_ONLY_TOOLS.has(tool.name) || tool.access === 'read';
  return {
    title: tool.title,
    readOnlyHint: readOnly,
    destructiveHint: !readOnly,
    idempotentHint: tool.name === 'Write',
    // NotebookRun reaches beyond the workspace: code runs in a kernel that may do anything.
    openWorldHint: tool.name === 'NotebookRun',
  };
}

/** One MCP tool descriptor per registry tool: a new tool appears here without MCP code. */
export function mcpToolsOf(tools: readonly ToolDefinition[]): Tool[] {
  return tools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: inputJsonSchema(tool) as Tool['inputSchema'],
    outputSchema: outputSchemaOf(tool),
    annotations: annotationsOf(tool),
  }));
}
