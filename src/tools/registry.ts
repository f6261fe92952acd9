import type { ToolDefinition } from './types.js';
import { readTool } from './read/index.js';
import { editTool } from './edit/index.js';
import { writeTool } from './write/index.js';
import { notebookEditTool } from './notebook-edit/index.js';
import { globTool } from './glob/index.js';
import { grepTool } from './grep/index.js';
import { lsTool } from './ls/index.js';

/** Every tool the service offers. The routes, OpenAPI and GET /v1/tools all come from here. */
export const TOOLS: ToolDefinition[] = [
  readTool,
  editTool,
  writeTool,
  notebookEditTool,
  globTool,
  grepTool,
  lsTool,
];
