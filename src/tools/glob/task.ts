import type { MessagePort } from 'node:worker_threads';
import { Budget } from '../../discovery/budget.js';
import { Emitter } from '../../discovery/emitter.js';
import { compilePattern } from '../../discovery/patterns.js';
import type { GlobItem, GlobTask } from '../../discovery/protocol.js';
import { walkFiles } from '../../discovery/walk.js';

/** Glob's walk, in a discovery worker: every visible file whose path below `path` matches. */
export function runGlobTask(task: GlobTask, port: MessagePort): void {
  const matches = compilePattern(task.pattern, 'pattern');
  const out = new Emitter<GlobItem>(port);
  const budget = new Budget(Date.now() + task.timeoutMs, task.maxEntries);
  const stats = walkFiles({ ...task, budget, needStat: true }, (files) => {
    for (const file of files) if (matches(file.relToStart)) out.push([file.rel, file.mtimeMs]);
  });
  out.stats.skippedDirs = stats.skippedDirs;
  out.stats.stopped = budget.spent;
  out.end();
}
