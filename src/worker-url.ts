/**
 * The modules that run in worker threads, by their path under src/ (without extension). The
 * build bundles each as its own entry point at the same path under dist/ (scripts/build.mjs
 * reads this list).
 */
export const WORKER_MODULES = ['off-loop/worker', 'discovery/worker', 'tools/read/page-worker'] as const;

export type WorkerModule = (typeof WORKER_MODULES)[number];

/**
 * Where a worker thread's module is. This file sits at the top of src/, and its compiled code
 * at the top of dist/ (in a per-file build as in the bundle, whose chunks all lie directly in
 * dist/), so one relative path finds the worker from source, from a per-file build and from
 * the bundle. `source`: the module is TypeScript (vitest, tsx) and the thread needs tsx's loader.
 */
export function workerUrl(name: WorkerModule): { url: URL; source: boolean } {
  const source = import.meta.url.endsWith('.ts');
  return { url: new URL(`./${name}${source ? '.ts' : '.js'}`, import.meta.url), source };
}
