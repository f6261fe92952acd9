/**
 * Child process for the peer bench: bare Fastify routes doing the same durable work as the
 * tools (the throughput baseline) and nothing else — no path policy, no sessions, no lock, no
 * history, no diff, no telemetry. Writes are temp + fsync + rename + fsync the folder.
 * Sends `{ port }` over IPC once listening.
 *
 * Usage: node --import tsx bench/peers-bare-server.ts <root>
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import Fastify from 'fastify';
import { durableWrite } from './support/durable-write.js';

const [root] = process.argv.slice(2);
if (!root) throw new Error('usage: peers-bare-server.ts <root>');
const abs = (rel: string) => path.join(root, rel);
const app = Fastify({ logger: false, bodyLimit: 32 * 1024 * 1024 });

interface ReadBody {
  file_path: string;
  offset?: number;
  limit?: number;
}

/** readFile + the asked lines numbered, in Read's answer shape (`result` + `text`). */
app.post('/bare/read', async (request) => {
  const { file_path, offset = 1, limit = 2000 } = request.body as ReadBody;
  const all = (await fsp.readFile(abs(file_path), 'utf8')).split('\n');
  if (all.at(-1) === '') all.pop();
  const lines = all.slice(offset - 1, offset - 1 + limit);
  return {
    result: {
      type: 'text',
      file: {
        file_path,
        content: lines.join('\n'),
        start_line: offset,
        num_lines: lines.length,
        total_lines: all.length,
        encoding: 'utf-8',
        line_endings: 'LF',
        bom: false,
      },
    },
    text: lines.map((l, i) => `${String(offset + i).padStart(6, ' ')}→${l}`).join('\n'),
  };
});

/** Read, replace one occurrence (it must be there), durable write. */
app.post('/bare/edit', async (request, reply) => {
  const { file_path, old_string, new_string } = request.body as { file_path: string; old_string: string; new_string: string };
  const text = await fsp.readFile(abs(file_path), 'utf8');
  if (!text.includes(old_string)) return reply.code(400).send({ error: { code: 'STRING_NOT_FOUND' } });
  await durableWrite(
    abs(file_path),
    text.replace(old_string, () => new_string),
  );
  return { result: { type: 'update', file_path } };
});

/**
 * Read the current text, durable write, and answer in Write's shape: the baseline's
 * durable work is "read, change, write", and Write's answer carries the text it replaced
 * (`original_file`), so the baseline sends back the same ~100 KB a Write does. No diff.
 */
app.post('/bare/write', async (request) => {
  const { file_path, content } = request.body as { file_path: string; content: string };
  const original = await fsp.readFile(abs(file_path), 'utf8');
  await durableWrite(abs(file_path), content);
  return {
    result: { type: 'update', file_path, original_file: original },
    text: `The file ${file_path} has been updated successfully.`,
  };
});

/** Parse, set one cell's source, stringify in Jupyter's layout, durable write. */
app.post('/bare/notebook_edit', async (request) => {
  const { notebook_path, cell_index, new_source } = request.body as { notebook_path: string; cell_index: number; new_source: string };
  const nb = JSON.parse(await fsp.readFile(abs(notebook_path), 'utf8')) as { cells: Array<{ source: unknown }> };
  nb.cells[cell_index]!.source = [new_source];
  await durableWrite(abs(notebook_path), `${JSON.stringify(nb, null, 1)}\n`);
  return { result: { type: 'update', notebook_path } };
});

await app.listen({ host: '127.0.0.1', port: 0 });
process.send?.({ port: (app.server.address() as { port: number }).port });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
