import { z } from 'zod';
import { errorResponses } from '../http/error-schema.js';

const jsonRpcId = z.union([z.string(), z.number()]).describe('The JSON-RPC request id (absent on notifications).');

const jsonRpcMessage = z
  .looseObject({
    jsonrpc: z.literal('2.0').describe('Always "2.0".'),
    id: jsonRpcId.optional(),
    method: z.string().optional().describe('e.g. initialize, tools/list, tools/call, resources/read, resources/subscribe.'),
    params: z.record(z.string(), z.unknown()).optional().describe("The method's parameters."),
  })
  .describe('One JSON-RPC 2.0 message of the Model Context Protocol.');

const jsonRpcAnswer = z
  .looseObject({
    jsonrpc: z.literal('2.0').describe('Always "2.0".'),
    id: jsonRpcId.nullable().describe('The id of the request answered (null when it could not be read).'),
    result: z.record(z.string(), z.unknown()).optional().describe("The method's result (tools/call: content, structuredContent, isError)."),
    error: z
      .object({
        code: z
          .number()
          .int()
          .describe(
            'JSON-RPC error code: -32602 unknown tool or bad params, -32700 parse error, -32600 batch, -32001 session not found, -32020 header mismatch, -32022 unsupported protocol version.',
          ),
        message: z.string().describe('What went wrong.'),
        data: z.unknown().optional().describe('Specifics, when any.'),
      })
      .optional()
      .describe('A protocol error. Tool failures are results with isError: true instead.'),
  })
  .describe('The JSON-RPC response.');

const DESCRIPTION = [
  'The tools (and workspace files as resources) over the Model Context Protocol, Streamable HTTP',
  'transport, both eras on this one endpoint. 2026-07-28: stateless, no initialize; every request',
  'carries MCP-Protocol-Version, Mcp-Method (and Mcp-Name for tools/call and resources/read) equal to',
  'its body and `_meta`, else 400 with -32020; server/discover; subscriptions/listen answers an event',
  'stream of resource updates. 2025-06-18 / 2025-11-25: the answer to `initialize` carries the',
  '`Mcp-Session-Id` to send on every later request; `GET /mcp` with it opens the notification stream',
  '(Last-Event-ID resumes it), `DELETE /mcp` ends the session. `X-Session-Id` names the sidefile',
  'session (shared read state with REST calls). JSON-RPC batches are refused (-32600). See docs/mcp.md.',
].join(' ');

/** POST is the one documented operation; GET (notification stream) and DELETE belong to it. */
export function mcpRouteSchema(method: 'POST' | 'GET' | 'DELETE'): Record<string, unknown> {
  if (method !== 'POST') return { hide: true };
  // Only the codes this route answers, each with an example (ORIGIN_DENIED, UNAUTHORIZED, INTERNAL).
  const errors = errorResponses(['INVALID_INPUT']);
  return {
    summary: 'Model Context Protocol endpoint (JSON-RPC over Streamable HTTP)',
    description: DESCRIPTION,
    operationId: 'mcp',
    tags: ['mcp'],
    security: [{ bearerAuth: [] }],
    body: z.union([jsonRpcMessage, z.array(jsonRpcMessage).describe('A batch of messages.')]).describe('A JSON-RPC message or batch.'),
    response: {
      200: jsonRpcAnswer,
      202: z.null().describe('Accepted: the body held only notifications or responses.'),
      400: jsonRpcAnswer
        .or(errors[400]!)
        .describe(
          'A malformed message or batch, headers that disagree with the body (-32020), an unsupported protocol version (-32022), or an invalid X-Session-Id (INVALID_INPUT).',
        ),
      401: errors[401]!,
      403: errors[403]!,
      404: jsonRpcAnswer.describe(
        'Unknown or expired Mcp-Session-Id (initialize again), or a 2026 method sidefile does not have (-32601).',
      ),
      500: errors[500]!,
    },
  };
}
