/**
 * The worker thread of page-offload.ts: reads small text files and builds their REST answers
 * (runPageJob), so that work runs beside the event loop instead of on it.
 */
import { parentPort } from 'node:worker_threads';
import { compileGlobs } from '../../paths/globs.js';
import { HashCache } from './hash-cache.js';
import { runPageJob, type PageMessage, type Policy } from './page-job.js';

const policies = new Map<number, Policy>();
const hashes = new HashCache();

parentPort?.on('message', (message: PageMessage) => {
  if (message.kind === 'policy') {
    policies.set(message.policy, { root: message.root, denied: compileGlobs(message.denyRead) });
    return;
  }
  const { reply, transfer } = runPageJob(message, { policy: policies.get(message.policy), hashes });
  parentPort?.postMessage(reply, transfer);
});
