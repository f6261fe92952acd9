import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runClaudeAgent, type ContentBlock, type CreateMessage } from '../examples/anthropic-messages.js';
import { makeTestApp, type TestApp } from './helpers.js';

/** README "Use it from your agent": each example driven by a recorded model transcript, no network. */
describe('README examples against a real server', () => {
  let t: TestApp;
  let baseUrl: string;
  beforeEach(async () => {
    t = await makeTestApp({ config: { token: 'tok' } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterEach(() => t.close());

  it('Anthropic Messages: text_editor_20250728 tool_use blocks become tool_result blocks', async () => {
    await writeFile(path.join(t.root, 'app.py'), 'def greet():\n    return "hi"\n');
    const turns: ContentBlock[][] = [
      [{ type: 'tool_use', id: 'toolu_1', name: 'str_replace_based_edit_tool', input: { command: 'view', path: 'app.py' } }],
      [
        { type: 'text', text: 'Changing the greeting.' },
        { type: 'tool_use', id: 'toolu_2', name: 'str_replace_based_edit_tool', input: { command: 'str_replace', path: 'app.py', old_str: 'return "hi"', new_str: 'return "hello"' } },
      ],
      [{ type: 'tool_use', id: 'toolu_3', name: 'str_replace_based_edit_tool', input: { command: 'str_replace', path: 'app.py', old_str: 'nope', new_str: 'x' } }],
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
});
