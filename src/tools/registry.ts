import type { ToolDefinition } from './types.js';

/** Every tool the service offers. The routes, OpenAPI and GET /v1/tools all come from here. */
export const TOOLS: ToolDefinition[] = [];
