// Anthropic Messages API on sidefile: Claude's built-in text editor tool
// (`text_editor_20250728`, named `str_replace_based_edit_tool`) forwarded to sidefile's compat
// route, whose answer is the tool_result as it must be sent back. `createMessage` is
// `(body) => anthropic.messages.create(body)` in production; the test hands it a recorded transcript.

export interface ContentBlock {
  type: string;
  id?: string;
  name?: string;
  input?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface Message {
  role: 'user' | 'assistant';
  content: string | ContentBlock[];
}

export type CreateMessage = (body: { model: string; max_tokens: number; messages: Message[]; tools: unknown[] }) => Promise<{
  content: ContentBlock[];
  stop_reason: string;
}>;

export async function runClaudeAgent(
  createMessage: CreateMessage,
  sidefile: { baseUrl: string; token?: string; session: string },
  prompt: string,
): Promise<Message[]> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', 'X-Session-Id': sidefile.session };
  if (sidefile.token) headers.Authorization = `Bearer ${sidefile.token}`;
  const tools = [{ type: 'text_editor_20250728', name: 'str_replace_based_edit_tool', max_characters: 20000 }];
  const messages: Message[] = [{ role: 'user', content: prompt }];
  for (let turn = 0; turn < 50; turn++) {
    const reply = await createMessage({ model: 'claude-sonnet-4-5', max_tokens: 4096, messages, tools });
    messages.push({ role: 'assistant', content: reply.content });
    if (reply.stop_reason !== 'tool_use') break;
    const results: ContentBlock[] = [];
    for (const block of reply.content) {
      if (block.type !== 'tool_use' || block.name !== 'str_replace_based_edit_tool') continue;
      const res = await fetch(`${sidefile.baseUrl}/v1/compat/anthropic/text-editor?max_characters=20000`, {
        method: 'POST',
        headers,
        body: JSON.stringify(block.input),
      });
      // Always { content, is_error } (but 401/403): exactly the tool_result's fields.
      const answer = (await res.json()) as { content: string; is_error: boolean };
      results.push({ type: 'tool_result', tool_use_id: block.id, content: answer.content, is_error: answer.is_error });
    }
    messages.push({ role: 'user', content: results });
  }
  return messages;
}
