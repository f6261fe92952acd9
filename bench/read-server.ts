/**
 * Child process for the Read bench: the built sidefile app (dist/, from `npm run build`) plus,
 * in the same process, a bare Fastify route doing what the simplest Read would do:
 * fs.readFile + number the first 2,000 lines + the same JSON shape (`result` + `text`).
 * Sends `{ port }` over IPC once listening.
 *
 * Usage: node --import tsx bench/read-server.ts <root> <dataDir> <logLevel>
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { localConfig } from '../src/config/config.js';

type BuildApp = typeof import('../src/app.js').buildApp;

const [root, dataDir, logLevel = 'info'] = process.argv.slice(2);
if (!root || !dataDir) throw new Error('usage: read-server.ts <root> <dataDir> [logLevel]');

const dist = pathToFileURL(path.resolve('dist/app.js')).href;
const { buildApp } = (await import(dist)) as { buildApp: BuildApp };

const app = await buildApp(localConfig(root, dataDir, { logLevel }));

/** The baseline: no path policy, no sniffing, no encoding detection, no read state. */
app.post('/bench/bare-read', async (request) => {
  const { file_path } = request.body as { file_path: string };
  const text = await fsp.readFile(path.join(root, file_path), 'utf8');
  const all = text.split('\n');
  if (all.at(-1) === '') all.pop();
  const lines = all.slice(0, 2000);
  return {
    result: {
      type: 'text',
      file: {
        file_path,
        content: lines.join('\n'),
        start_line: 1,
        num_lines: lines.length,
        total_lines: all.length,
        encoding: 'utf-8',
        line_endings: 'LF',
        bom: false,
      },
    },
    text: lines.map((l, i) => `${String(i + 1).padStart(6, ' ')}→${l}`).join('\n'),
  };
});

/**
 * The ceiling for any route with Read's answer: the Read answer for a file, captured once, then
 * returned as a constant (no file system, no checks). What it reaches relative to /healthz is
 * the most any Read of that file could reach on this machine.
 */
const captured = new Map<string, unknown>();
app.post('/bench/constant-read', async (request) => {
  const { file_path } = request.body as { file_path: string };
  if (!captured.has(file_path)) {
    const res = await app.inject({ method: 'POST', url: '/v1/tools/read', payload: { file_path }, headers: { 'x-session-id': 'capture' } });
    captured.set(file_path, JSON.parse(res.body));
  }
  return captured.get(file_path);
});

await app.listen({ host: '127.0.0.1', port: 0 });
process.send?.({ port: (app.server.address() as { port: number }).port });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
