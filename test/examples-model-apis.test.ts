import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runClaudeAgent, type ContentBlock, type CreateMessage } from '../examples/anthropic-messages.js';
import { runOpenAIAgent, type CreateResponse, type ResponsesItem } from '../examples/openai-responses.js';
import { listenOnLoopback, makeTestApp, type TestApp } from './helpers.js';

/** README "Use it from your agent": each example driven by a recorded model transcript, no network. */
describe('README examples against a real server', () => {
  let t: TestApp;
  let baseUrl: string;
  beforeEach(async () => {
    t = await makeTestApp({ config: { token: 'tok' } });
    baseUrl = await listenOnLoopback(t);
  });
  afterEach(() => t.close());

  it('Anthropic Messages: text_editor_20250728 tool_use blocks become tool_result blocks', async () => {
    await writeFile(path.join(t.root, 'app.py'), 'def greet():\n    return "hi"\n');
    const turns: ContentBlock[][] = [
      [{ type: 'tool_use', id: 'toolu_1', name: 'str_replace_based_edit_tool', input: { command: 'view', path: 'app.py' } }],
      [
        { type: 'text', text: 'Changing the greeting.' },
        {
          type: 'tool_use',
          id: 'toolu_2',
          name: 'str_replace_based_edit_tool',
          input: { command: 'str_replace', path: 'app.py', old_str: 'return "hi"', new_str: 'return "hello"' },
        },
      ],
      [
        {
          type: 'tool_use',
          id: 'toolu_3',
          name: 'str_replace_based_edit_tool',
          input: { command: 'str_replace', path: 'app.py', old_str: 'nope', new_str: 'x' },
        },
      ],
      [{ type: 'text', text: 'Done.' }],
    ];
    const bodies: Array<{ tools: unknown[] }> = [];
    let turn = 0;
    const createMessage: CreateMessage = async (body) => {
      bodies.push(structuredClone(body));
      const content = turns[turn++] ?? [];
      return { content, stop_reason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn' };
    };
    const messages = await runClaudeAgent(createMessage, { baseUrl, token: 'tok', session: 'claude-1' }, 'Say hello.');
    expect(bodies[0]?.tools).toEqual([{ type: 'text_editor_20250728', name: 'str_replace_based_edit_tool', max_characters: 20000 }]);
    const results = messages.filter((m) => m.role === 'user' && Array.isArray(m.content)).map((m) => m.content as ContentBlock[]);
    expect(results.map((r) => r.map((b) => [b.type, b.tool_use_id, b.is_error]))).toEqual([
      [['tool_result', 'toolu_1', false]],
      [['tool_result', 'toolu_2', false]],
      [['tool_result', 'toolu_3', true]],
    ]);
    expect(results[0]?.[0]?.content).toBe('     1→def greet():\n     2→    return "hi"');
    expect(results[2]?.[0]?.content).toMatch(/not found/);
    expect(await readFile(path.join(t.root, 'app.py'), 'utf8')).toBe('def greet():\n    return "hello"\n');
  });

  it('OpenAI Responses: strict function calls and hosted apply_patch_call operations get their outputs', async () => {
    await writeFile(path.join(t.root, 'app.py'), 'def greet():\n    return "hi"\n');
    const turns: ResponsesItem[][] = [
      // Strict mode: every optional the model does not use arrives as null.
      [
        {
          type: 'function_call',
          call_id: 'call_1',
          name: 'Read',
          arguments: JSON.stringify({ file_path: 'app.py', offset: null, limit: null }),
        },
      ],
      [
        {
          type: 'apply_patch_call',
          call_id: 'call_2',
          status: 'completed',
          operation: { type: 'update_file', path: 'app.py', diff: '@@ def greet():\n-    return "hi"\n+    return "hello"\n' },
        },
      ],
      [
        {
          type: 'apply_patch_call',
          call_id: 'call_3',
          status: 'completed',
          operation: { type: 'create_file', path: 'README.md', diff: '+# Greeter\n' },
        },
      ],
      [{ type: 'apply_patch_call', call_id: 'call_4', status: 'completed', operation: { type: 'delete_file', path: 'missing.txt' } }],
      [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Done.' }] }],
    ];
    const bodies: Array<{ tools: unknown[] }> = [];
    let turn = 0;
    const createResponse: CreateResponse = async (body) => {
      bodies.push(structuredClone(body));
      return { output: turns[turn++] ?? [] };
    };
    const input = await runOpenAIAgent(createResponse, { baseUrl, token: 'tok', session: 'gpt-1' }, 'Say hello.');
    const tools = bodies[0]?.tools as Array<{ type: string; name?: string; strict?: boolean }>;
    expect(tools.at(-1)).toEqual({ type: 'apply_patch' });
    expect(tools.filter((x) => x.type === 'function').every((x) => x.strict === true)).toBe(true);
    expect(tools.map((x) => x.name ?? x.type)).not.toContain('ApplyPatch');
    const outputs = input.filter((i) => i.type.endsWith('_output'));
    expect(outputs.map((o) => [o.type, o.call_id, o.status ?? null])).toEqual([
      ['function_call_output', 'call_1', null],
      ['apply_patch_call_output', 'call_2', 'completed'],
      ['apply_patch_call_output', 'call_3', 'completed'],
      ['apply_patch_call_output', 'call_4', 'failed'],
    ]);
    expect(outputs[0]?.output).toBe('     1→def greet():\n     2→    return "hi"');
    expect(outputs[1]?.output).toBe('Applied patch to 1 file:\nM app.py (+1 -1)');
    expect(outputs[2]?.output).toBe('Applied patch to 1 file:\nA README.md (+1)');
    expect(await readFile(path.join(t.root, 'app.py'), 'utf8')).toBe('def greet():\n    return "hello"\n');
    expect(await readFile(path.join(t.root, 'README.md'), 'utf8')).toBe('# Greeter\n');
  });
});
