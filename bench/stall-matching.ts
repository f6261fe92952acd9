/**
 * "Bounded work": the stall bench's rows for the matching ladder and `closest` —
 * old texts that are not in a file whose every window looks like the next, and a replace_all
 * just under the 2 MiB off-loop threshold. Each row: the call's time and the slowest /healthz.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { almostSame, contextPatch, oneCharLines, sameLines, unevenIndent } from './support/matching-fixtures.js';
import type { HttpClient } from './support/http-client.js';
import type { HeavyCall } from './stall.js';

const post = (client: HttpClient, tool: string, body: unknown) => client.request('POST', `/v1/tools/${tool}`, body);

/** Puts `text` at `rel` and reads its first line (Edit, MultiEdit and ApplyPatch need a read). */
async function place(root: string, client: HttpClient, rel: string, text: string): Promise<void> {
  await fsp.writeFile(path.join(root, rel), text);
  const res = await post(client, 'read', { file_path: rel, offset: 1, limit: 1 });
  if (res.status !== 200) throw new Error(`Read ${rel}: ${res.status} ${res.body.slice(0, 200)}`);
}

function notFound(tool: 'edit' | 'multi_edit' | 'apply_patch', oldLines: number, fileLines: number): HeavyCall {
  const rel = `same-${fileLines}.txt`;
  const old = almostSame(oldLines);
  const label = { edit: 'Edit', multi_edit: 'MultiEdit', apply_patch: 'ApplyPatch context' }[tool];
  return {
    name: `${label}: ${oldLines.toLocaleString('en')}-line old text not in ${fileLines.toLocaleString('en')} lines`,
    setup: (root, client) => place(root, client, rel, sameLines(fileLines)),
    call: (client) => {
      if (tool === 'edit') return post(client, 'edit', { file_path: rel, old_string: old, new_string: 'x' });
      if (tool === 'multi_edit') return post(client, 'multi_edit', { file_path: rel, edits: [{ old_string: old, new_string: 'x' }] });
      return post(client, 'apply_patch', { patch: contextPatch(rel, old) });
    },
    expect: 422,
  };
}

export const MATCHING_CALLS: HeavyCall[] = [
  notFound('edit', 501, 50_000),
  notFound('edit', 1001, 100_000),
  notFound('multi_edit', 1001, 100_000),
  notFound('apply_patch', 1001, 100_000),
  { ...notFound('edit', 200, 50_000), name: 'Edit: closest for a 200-line old text in 50,000 lines' },
  { ...notFound('edit', 200, 100_000), name: 'Edit: closest for a 200-line old text in 100,000 lines' },
  {
    name: 'Edit: 1,001 lines, no one indentation change, in 100,000 tab-indented lines',
    setup: (root, client) => place(root, client, 'tabs.txt', sameLines(100_000, '\tfoo bar baz')),
    call: (client) => post(client, 'edit', { file_path: 'tabs.txt', old_string: unevenIndent(1001), new_string: 'x' }),
    expect: 422,
  },
  {
    name: 'Edit replace_all over 1,000,000 matches (2,000,000 bytes, under 2 MiB)',
    setup: (root, client) => place(root, client, 'one-char.txt', oneCharLines(1_000_000)),
    call: (client) => post(client, 'edit', { file_path: 'one-char.txt', old_string: 'a', new_string: 'xy', replace_all: true }),
    expect: 200,
  },
];
