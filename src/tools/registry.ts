import type { ToolDefinition } from './types.js';
import { readTool } from './read/index.js';
import { editTool } from './edit/index.js';
import { multiEditTool } from './multi-edit/index.js';
import { writeTool } from './write/index.js';
import { notebookEditTool } from './notebook-edit/index.js';

/** Every tool the service offers. The routes, OpenAPI and GET /v1/tools all come from here. */
export const TOOLS: ToolDefinition[] = [
  readTool,
  editTool,
  multiEditTool,
  writeTool,
  notebookEditTool,
];
