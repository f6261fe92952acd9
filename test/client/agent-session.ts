// A normal agent session written against the client generated from openapi/openapi.json.
// test/openapi-client.test.ts generates `./api.d.ts` and type-checks this file under --strict.
import createClient from 'openapi-fetch';
import type { paths } from './api.js';

export async function agentSession(baseUrl: string, token: string): Promise<string[]> {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}`, 'X-Session-Id': 'agent-1' } });
  const seen: string[] = [];

  const read = await client.POST('/v1/tools/read', { body: { file_path: 'src/app.py', offset: 1, limit: 50 } });
  if (read.error) return [read.error.error.code, read.error.error.message];
  const result = read.data.result;
  if (result.type === 'text') seen.push(`${result.file.file_path}: ${result.file.total_lines ?? '?'} lines, ${result.file.encoding}`);
  else if (result.type === 'notebook') seen.push(`${result.file.total_cells} cells`);
  seen.push(read.data.text);

  const edit = await client.POST('/v1/tools/edit', {
    body: { file_path: 'src/app.py', old_string: 'a', new_string: 'b', replace_all: false },
  });
  if (edit.data) seen.push(`${edit.data.result.replacements} replacement(s), ${edit.data.result.structured_patch.length} hunk(s)`);
  if (edit.error?.error.code === 'FILE_MODIFIED_SINCE_READ') seen.push('re-read needed');

  const write = await client.POST('/v1/tools/write', { body: { file_path: 'notes.md', content: '# notes\n' } });
  if (write.data) seen.push(write.data.result.type, String(write.data.result.original_file ?? 'new'));

  const nb = await client.POST('/v1/tools/notebook_edit', {
    body: { notebook_path: 'a.ipynb', cell_id: 'cell-0', new_source: 'print(1)', edit_mode: 'replace' },
  });
  if (nb.data) seen.push(nb.data.result.cell_id);

  const history = await client.GET('/v1/history', { params: { query: { file_path: 'notes.md' } } });
  for (const v of history.data?.versions ?? []) seen.push(`${v.version} ${v.tool} ${v.size ?? 'absent'}`);

  const tools = await client.GET('/v1/tools');
  for (const tool of tools.data?.tools ?? []) seen.push(tool.name);

  const forgot = await client.DELETE('/v1/sessions/{id}', { params: { path: { id: 'agent-1' } } });
  if (forgot.data) seen.push(String(forgot.data.forgotten));
  return seen;
}
