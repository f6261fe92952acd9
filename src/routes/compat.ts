import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppServices } from '../app-services.js';
import { runTextEditor, textEditorInput } from '../compat/text-editor.js';
import { drainBody } from '../http/drain.js';
import { sendError, toToolError } from '../http/error-handler.js';
import { errorResponses } from '../http/error-schema.js';
import { sessionHeaders, sessionOf } from '../http/session.js';
import { bodyForCallTool } from '../http/validator.js';
import type { ToolDefinition } from '../tools/types.js';
import { SECURED } from './tools.js';

const answer = z
  .object({
    content: z.string().describe('The tool_result content: the file view, or what happened, or the error message.'),
    is_error: z.boolean().describe('The tool_result is_error flag.'),
  })
  .describe('Always 200: a failed command is `is_error: true` with the message for the model.');

/** Failures that keep their own status here: the caller is not let in at all. */
const PASS_THROUGH = new Set(['UNAUTHORIZED', 'ORIGIN_DENIED']);

/** `POST /v1/compat/anthropic/text-editor`. */
export function registerCompatRoutes(app: FastifyInstance, services: AppServices, tools: readonly ToolDefinition[]): void {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: 'POST',
    url: '/v1/compat/anthropic/text-editor',
    validatorCompiler: bodyForCallTool,
    schema: {
      summary: "Anthropic's text editor tool (str_replace_based_edit_tool) on sidefile's tools",
      description:
        "The body is the model's `tool_use.input` for `text_editor_20250728` (and `undo_edit` of earlier versions). " +
        'view → Read (a folder: two levels deep), str_replace → Edit (with the matching ladder), create → Write, ' +
        "insert → insert after a line, undo_edit → restore the version this session's last write replaced. " +
        'The answer is ready for the `tool_result` block.',
      operationId: 'compatAnthropicTextEditor',
      tags: ['compat'],
      security: SECURED,
      headers: sessionHeaders,
      querystring: z.strictObject({
        max_characters: z.coerce.number().int().min(1).optional().describe('view: cut the content at this many characters.'),
      }),
      body: textEditorInput,
      response: { 200: answer, ...errorResponses(['UNAUTHORIZED', 'ORIGIN_DENIED']) },
    },
    errorHandler: async (err: unknown, request: FastifyRequest, reply: FastifyReply) => {
      const error = toToolError(err, app.initialConfig.bodyLimit);
      // Read the rest of an over-limit body so the client can read the answer.
      if (error.code === 'PAYLOAD_TOO_LARGE') await drainBody(request.raw);
      if (PASS_THROUGH.has(error.code)) return sendError(reply, error);
      if (error.code === 'INTERNAL') request.log.error({ err }, 'unexpected error');
      return reply.code(200).send({ content: error.message, is_error: true });
    },
    handler: async (request) =>
      runTextEditor({ services, tools }, request.body, {
        session: sessionOf(request),
        log: request.log,
        maxCharacters: request.query.max_characters,
      }),
  });
}
