import { z } from 'zod';
import type { ToolDefinition } from './types.js';

export type JsonSchema = Record<string, unknown>;

/**
 * A tool's body as JSON Schema (2020-12, no `$schema` key): what GET /v1/tools lists as
 * `input_schema` and MCP `tools/list` as `inputSchema`, so both front ends show one schema.
 */
export function inputJsonSchema(tool: Pick<ToolDefinition, 'input'>): JsonSchema {
  const schema = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  delete schema.$schema;
  return schema;
}

/** A tool's `result` as JSON Schema (output side: defaults are filled in). */
export function resultJsonSchema(tool: Pick<ToolDefinition, 'result'>): JsonSchema {
  const schema = z.toJSONSchema(tool.result, { io: 'output', unrepresentable: 'any' }) as JsonSchema;
  delete schema.$schema;
  return schema;
}
