// A sidefile server for crash tests (test/faults-sigkill-points.test.ts): the real app, built and
// listening as src/server.ts does, that SIGKILLs itself at one exact point instead of at a timed
// moment. SIDEFILE_KILL_POINT names the point:
//   upload-rename: right after a Files API upload's temp file is renamed over a file whose name
//                  starts with `kill-` — before the folder's fsync, the temp journal's cleanup,
//                  the ETag cache, the event and the answer.
// Only the killed run uses this server; the restart runs the service as `npm start` does.
import fs, { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildApp } from '../../src/app.js';
import { parseConfig } from '../../src/config/config.js';

const point = process.env.SIDEFILE_KILL_POINT;

/** Dies here and now: nothing after this line runs, as with a power cut to the process. */
function die(): never {
  process.kill(process.pid, 'SIGKILL');
  // SIGKILL to oneself is delivered before the call returns; block in case it is not yet.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  throw new Error('unreachable');
}

if (point === 'upload-rename') {
  const rename = fs.renameSync;
  fs.renameSync = (from: fs.PathLike, to: fs.PathLike): void => {
    rename(from, to);
    if (path.basename(String(from)).startsWith('.sidefile-tmp-') && path.basename(String(to)).startsWith('kill-')) die();
  };
}

const config = parseConfig(process.argv.slice(2), process.env, (file) => readFileSync(file, 'utf8'));
const app = await buildApp(config);
await app.listen({ host: config.host, port: config.port });
const address = app.server.address();
app.log.info({ port: typeof address === 'object' && address ? address.port : null }, 'kill-point server listening');
