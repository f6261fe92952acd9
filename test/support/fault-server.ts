// A sidefile server for fault tests (test/faults-swap.test.ts): the real app, built and listening
// as src/server.ts does, plus one fault: a file named `swap-<when>-<kind>-*` is replaced, at
// the moment `when` names, by `kind`:
//   when  resolved: right after the route resolved the path (the route's checks all passed);
//         loaded:   when the writer opens its temp file (the tool loaded and checked the file);
//   kind  dir: a directory; fifo: a named pipe; devzero: a symlink to /dev/zero.
// Runs as its own process so that a fault that blocks the event loop cannot hang the test runner.
import { execFileSync } from 'node:child_process';
import fs, { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildApp } from '../../src/app.js';
import { parseConfig } from '../../src/config/config.js';
import { nodeWriterFs } from '../../src/write/atomic-writer.js';

const SWAP = /^swap-(resolved|loaded)-(dir|fifo|devzero)-/;

/** Replaces the file at `real` by `kind`, synchronously (nothing can run in between). */
function swap(real: string, kind: string): void {
  fs.rmSync(real, { force: true });
  if (kind === 'dir') fs.mkdirSync(real);
  else if (kind === 'fifo') execFileSync('mkfifo', [real]);
  else fs.symlinkSync('/dev/zero', real);
}

/** Real paths whose swap waits for the writer's temp file, by folder. */
const pendingAtLoad = new Map<string, string>();

/** The folder a writer path names: the writer goes by `/proc/self/fd/<fd>/<name>` where it can. */
function folderOf(p: string): string {
  const dir = path.dirname(p);
  return dir.startsWith('/proc/self/fd/') ? fs.readlinkSync(dir) : dir;
}

const realOpen = nodeWriterFs.open;
nodeWriterFs.open = async (p, flags, mode) => {
  const pending = pendingAtLoad.get(folderOf(p));
  if (pending && path.basename(p).startsWith('.sidefile-tmp-')) {
    pendingAtLoad.delete(folderOf(p));
    swap(pending, SWAP.exec(path.basename(pending))![2]!);
  }
  return realOpen(p, flags, mode);
};

const config = parseConfig(process.argv.slice(2), process.env, (file) => readFileSync(file, 'utf8'));
const app = await buildApp(config, {
  configure: (services) => {
    const resolve = services.resolve;
    services.resolve = async (input, access, kind) => {
      const target = await resolve(input, access, kind);
      const m = SWAP.exec(path.basename(target.real));
      // Only a file that exists is swapped: the request that creates it goes through untouched.
      if (!m || target.stat === null) return target;
      if (m[1] === 'resolved') swap(target.real, m[2]!);
      if (m[1] === 'loaded') pendingAtLoad.set(path.dirname(target.real), target.real);
      return target;
    };
  },
});
await app.listen({ host: config.host, port: config.port });
const address = app.server.address();
app.log.info({ port: typeof address === 'object' && address ? address.port : null }, 'fault server listening');
