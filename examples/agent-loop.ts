// An agent loop on `@sidefile/client`: the model asks for tools by name, the loop calls
// sidefile and hands each answer's `text` (or error message) back. The model is any function
// from tool results to the next tool calls — a real model API in production, a recorded
// transcript in test/client-agent-loop.test.ts.
import { createSidefileClient, SidefileError, type ToolSlug } from '@sidefile/client';

export interface ModelToolCall {
  id: string;
  /** A sidefile tool name as GET /v1/tools lists it: Read, Edit, Write, … */
  name: string;
  input: Record<string, unknown>;
}

export interface ToolResult {
  id: string;
  content: string;
  isError: boolean;
}

/** One model turn: given the previous turn's tool results, the next calls (none = done). */
export type Model = (results: ToolResult[]) => Promise<ModelToolCall[]>;

export async function runAgent(model: Model, options: { baseUrl: string; token?: string; session: string }): Promise<ToolResult[]> {
  const sidefile = createSidefileClient(options);
  const listed = await sidefile.raw.GET('/v1/tools');
  // Tool names map to their routes through the list itself, so new tools need no code here.
  const slugs = new Map((listed.data?.tools ?? []).map((t) => [t.name, t.endpoint.replace('/v1/tools/', '') as ToolSlug]));
  const transcript: ToolResult[] = [];
  let results: ToolResult[] = [];
  for (let turn = 0; turn < 50; turn++) {
    const calls = await model(results);
    if (calls.length === 0) break;
    results = [];
    for (const call of calls) {
      const slug = slugs.get(call.name);
      if (!slug) {
        results.push({ id: call.id, content: `Unknown tool ${call.name}.`, isError: true });
        continue;
      }
      try {
        const answer = await sidefile.call(slug, call.input as never);
        results.push({ id: call.id, content: answer.text, isError: false });
      } catch (err) {
        if (!(err instanceof SidefileError)) throw err;
        // The message is written for the model: it says what to do next.
        results.push({ id: call.id, content: err.message, isError: true });
      }
    }
    transcript.push(...results);
  }
  return transcript;
}
