import type { ToolDefinition, ToolServices } from '../tools/types.js';

/** What the compat route runs on: the services and the tools the app serves. */
export interface TextEditorDeps {
  services: ToolServices;
  tools: readonly ToolDefinition[];
}
