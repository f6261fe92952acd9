import { Worker } from 'node:worker_threads';

/**
 * A worker thread running the module `name` beside `base` (the caller's import.meta.url).
 * Under tsx/vitest the source is TypeScript: the worker registers tsx, then loads it.
 */
export function startWorker(base: string, name: string): Worker {
  const source = base.endsWith('.ts');
  const url = new URL(`./${name}${source ? '.ts' : '.js'}`, base);
  if (!source) return new Worker(url);
  return new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`, {
    eval: true,
  });
}
