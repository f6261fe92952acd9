import type { Dirent } from 'node:fs';
import type { MessagePort } from 'node:worker_threads';
import { Budget } from '../../discovery/budget.js';
import { closeDir, linkedFolderOrFile, listDir, lstatIn, type CheckedDir } from '../../discovery/checked-fs.js';
import { Emitter } from '../../discovery/emitter.js';
import { isIgnored, type IgnoreStack } from '../../discovery/ignore-rules.js';
import { compilePattern, type PathTest } from '../../discovery/patterns.js';
import type { LsItem, LsTask } from '../../discovery/protocol.js';
import { openStart, withFolderRules } from '../../discovery/walk.js';
import { compileGlobs } from '../../paths/globs.js';
import { toRelative } from '../../paths/lexical.js';

/** LS in a discovery worker: the visible entries of one folder (sorted by the event loop's side). */
export function runLsTask(task: LsTask, port: MessagePort): void {
  const hidden = task.ignore.map((glob) => compilePattern(glob, 'ignore'));
  const out = new Emitter<LsItem>(port);
  const budget = new Budget(Date.now() + task.timeoutMs, task.maxEntries);
  const start = openStart(task);
  if (start !== null) {
    try {
      listFolder(task, start.dir, start.rules, hidden, budget, out);
    } finally {
      closeDir(start.dir);
    }
  }
  out.stats.stopped = budget.spent;
  out.end();
}

function listFolder(task: LsTask, dir: CheckedDir, inherited: IgnoreStack, hidden: PathTest[], budget: Budget, out: Emitter<LsItem>): void {
  let entries: Dirent[];
  try {
    entries = listDir(dir);
  } catch {
    out.stats.skippedDirs++;
    return;
  }
  const names = new Set(entries.map((e) => e.name));
  const rules = task.includeIgnored ? inherited : withFolderRules(task.root, dir, task.startRel, inherited, names);
  const denied = compileGlobs(task.denyRead);
  for (const entry of entries) {
    if (!budget.visit()) return;
    // Security: .git is never listed; a deny-read glob makes an entry invisible.
    if (entry.name === '.git') continue;
    const rel = task.startRel === '' ? entry.name : `${task.startRel}/${entry.name}`;
    if (denied(rel) || hidden.some((test) => test(entry.name))) continue;
    const item = describe(task, dir, entry.name, denied);
    if (item === null) continue;
    if (!task.includeIgnored && isIgnored(rules, rel, item.type === 'directory')) continue;
    out.push(item);
  }
}

function describe(task: LsTask, dir: CheckedDir, name: string, denied: (rel: string) => boolean): LsItem | null {
  const st = lstatIn(dir, name);
  if (st === null) return null;
  if (st.isDirectory()) return { name, type: 'directory', size: null, mtimeMs: st.mtimeMs };
  if (st.isFile()) return { name, type: 'file', size: st.size, mtimeMs: st.mtimeMs };
  if (!st.isSymbolicLink()) return { name, type: 'other', size: null, mtimeMs: st.mtimeMs };
  const target = linkedFolderOrFile(task.root, dir, name);
  // Security: a link leading outside (or nowhere) is skipped; one to a denied path too.
  if (target === null || denied(toRelative(task.root, target.real))) return null;
  return { name, type: 'symlink', size: target.stat.isFile() ? target.stat.size : null, mtimeMs: target.stat.mtimeMs };
}
