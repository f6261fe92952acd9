import { mcpToolsOf } from '../mcp/tool-list.js';
import { inputJsonSchema } from '../tools/json-schema.js';
import type { ToolDefinition } from '../tools/types.js';
import { toStrict } from './openai-strict.js';

/**
 * `GET /v1/tools?dialect=`: the registry's tools in the shape each model API takes,
 * all generated from the same zod schemas as the REST bodies (no schema written by hand).
 */
export const DIALECTS = ['openai', 'anthropic', 'gemini', 'mcp'] as const;
export type Dialect = (typeof DIALECTS)[number];

/** The answer for one dialect: `{ tools: [...] }` in that API's own shape. */
export function toolsInDialect(dialect: Dialect, tools: readonly ToolDefinition[]): { tools: Array<Record<string, unknown>> } {
  switch (dialect) {
    case 'openai':
      return {
        tools: tools.map((tool) => ({
          type: 'function',
          name: tool.name,
          description: tool.description,
          parameters: toStrict(inputJsonSchema(tool)),
          strict: true,
        })),
      };
    case 'anthropic':
      return { tools: tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: inputJsonSchema(tool) })) };
    case 'gemini':
      return {
        tools: [
          {
            functionDeclarations: tools.map((tool) => ({
              name: tool.name,
              description: tool.description,
              parametersJsonSchema: inputJsonSchema(tool),
            })),
          },
        ],
      };
    case 'mcp':
      return { tools: mcpToolsOf(tools) as unknown as Array<Record<string, unknown>> };
  }
}
