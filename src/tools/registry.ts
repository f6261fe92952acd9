import { applyPatchTool } from './apply-patch/index.js';
import { editTool } from './edit/index.js';
import { multiEditTool } from './multi-edit/index.js';
import { notebookEditTool } from './notebook-edit/index.js';
import { createNotebookRunTool } from './notebook-run/index.js';
import { createReadTool } from './read/index.js';
import type { ToolDefinition, ToolServices } from './types.js';
import { writeTool } from './write/index.js';
import { DiscoveryPool } from '../discovery/pool.js';
import { createGlobTool } from './glob/index.js';
import { createGrepTool } from './grep/index.js';
import { createLsTool } from './ls/index.js';

/**
 * Every tool the service offers, fresh for one app: the routes, OpenAPI, GET /v1/tools,
 * metrics labels and any other front end (MCP) come from this list. Adding a tool is one
 * line here and a folder `src/tools/<slug>/` (docs/architecture.md). A tool that holds
 * resources (Read's line indexes) releases them in `close()`, called when the app closes.
 */
export function createTools(services: ToolServices): ToolDefinition[] {
  // One worker pool for the app's discovery tools; each tool's close() ends it (idempotent).
  const discovery = new DiscoveryPool();
  return [
    createReadTool(),
    editTool,
    multiEditTool,
    writeTool,
    notebookEditTool,
    createNotebookRunTool(services.settings.jupyter ?? null),
    applyPatchTool,
    createGlobTool(discovery),
    createGrepTool(discovery),
    createLsTool(discovery),
  ];
}
