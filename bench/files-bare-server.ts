/**
 * The Files API bench's floor: a bare Node server that streams PUT bodies to disk with the same
 * durability as sidefile (temp file in the same folder, fsync, rename, fsync the folder) and
 * streams GETs back — no path policy, no locks, no history, no hashing.
 * `tsx bench/files-bare-server.ts <root>`: prints `port <n>` once listening.
 */
import { randomBytes } from 'node:crypto';
import fs, { promises as fsp } from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const root = process.argv[2] ?? process.cwd();

async function put(file: string, req: http.IncomingMessage): Promise<void> {
  const dir = path.dirname(file);
  await fsp.mkdir(dir, { recursive: true });
  const temp = path.join(dir, `.bare-tmp-${randomBytes(8).toString('hex')}`);
  const handle = await fsp.open(temp, 'wx');
  try {
    for await (const chunk of req) await handle.write(chunk as Buffer);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await fsp.rename(temp, file);
  const folder = await fsp.open(dir, 'r');
  await folder.sync();
  await folder.close();
}

const server = http.createServer((req, res) => {
  const rel = decodeURIComponent((req.url ?? '/').split('?')[0]!.replace(/^\/v1\/files\//, ''));
  const file = path.join(root, rel);
  if (req.method === 'PUT') {
    put(file, req).then(
      () => res.writeHead(204).end(),
      () => res.writeHead(500).end(),
    );
    return;
  }
  fs.stat(file, (err, st) => {
    if (err) return void res.writeHead(404).end();
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': st.size });
    fs.createReadStream(file).pipe(res);
  });
});
// Fastify's default (sidefile keeps it): idle keep-alive connections are kept 72 s, not Node's 5 s,
// so neither server makes the bench's clients reconnect between rounds.
server.keepAliveTimeout = 72_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(`port ${typeof address === 'object' && address ? address.port : 0}`);
});
