import { Worker } from 'node:worker_threads';
import { workerUrl, type WorkerModule } from '../worker-url.js';

/**
 * A worker thread running the module `name` (its path under src/, src/worker-url.ts).
 * Under tsx/vitest the source is TypeScript: the worker registers tsx, then loads it.
 */
export function startWorker(name: WorkerModule): Worker {
  const { url, source } = workerUrl(name);
  if (!source) return new Worker(url);
  return new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`, {
    eval: true,
  });
}
