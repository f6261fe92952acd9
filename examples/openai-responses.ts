// OpenAI Responses API on sidefile: function tools from GET /v1/tools?dialect=openai (strict
// mode), plus the hosted `apply_patch` tool whose operations go to ApplyPatch as they arrive.
// `createResponse` is `(body) => openai.responses.create(body)` in production; the test hands
// it a recorded transcript.

export interface ResponsesItem {
  type: string;
  call_id?: string;
  name?: string;
  arguments?: string;
  operation?: { type: 'create_file' | 'update_file' | 'delete_file'; path: string; diff?: string };
  [key: string]: unknown;
}

export type CreateResponse = (body: { model: string; input: ResponsesItem[]; tools: unknown[] }) => Promise<{ output: ResponsesItem[] }>;

export interface SidefileTarget {
  baseUrl: string;
  token?: string;
  session: string;
}

export async function runOpenAIAgent(createResponse: CreateResponse, sidefile: SidefileTarget, prompt: string): Promise<ResponsesItem[]> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', 'X-Session-Id': sidefile.session };
  if (sidefile.token) headers.Authorization = `Bearer ${sidefile.token}`;
  const listed = (await (await fetch(`${sidefile.baseUrl}/v1/tools?dialect=openai`, { headers })).json()) as {
    tools: Array<{ type: 'function'; name: string }>;
  };
  // ApplyPatch comes as the hosted tool instead of a function the model would call.
  const tools = [...listed.tools.filter((t) => t.name !== 'ApplyPatch'), { type: 'apply_patch' }];
  const post = async (route: string, body: unknown) => {
    const res = await fetch(`${sidefile.baseUrl}${route}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const answer = (await res.json()) as { text?: string; error?: { message: string } };
    return { ok: res.ok, text: answer.text ?? answer.error?.message ?? `HTTP ${res.status}` };
  };
  const slugs = new Map([
    ['Read', 'read'],
    ['Edit', 'edit'],
    ['MultiEdit', 'multi_edit'],
    ['Write', 'write'],
    ['NotebookEdit', 'notebook_edit'],
    ['Glob', 'glob'],
    ['Grep', 'grep'],
    ['LS', 'ls'],
  ]);
  const input: ResponsesItem[] = [{ type: 'message', role: 'user', content: prompt }];
  for (let turn = 0; turn < 50; turn++) {
    const response = await createResponse({ model: 'gpt-5.1-codex', input, tools });
    input.push(...response.output);
    const outputs: ResponsesItem[] = [];
    for (const item of response.output) {
      if (item.type === 'function_call') {
        // Strict mode sends null for every optional left out: sidefile reads null as absent.
        const answer = await post(`/v1/tools/${slugs.get(item.name ?? '') ?? 'unknown'}`, JSON.parse(item.arguments ?? '{}'));
        outputs.push({ type: 'function_call_output', call_id: item.call_id, output: answer.text });
      } else if (item.type === 'apply_patch_call' && item.operation) {
        const answer = await post('/v1/tools/apply_patch', { operations: [item.operation] });
        outputs.push({
          type: 'apply_patch_call_output',
          call_id: item.call_id,
          status: answer.ok ? 'completed' : 'failed',
          output: answer.text,
        });
      }
    }
    if (outputs.length === 0) break;
    input.push(...outputs);
  }
  return input;
}
