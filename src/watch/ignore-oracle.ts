import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isIgnored, pushRules, type IgnoreStack } from '../discovery/ignore-rules.js';

/**
 * Whether Glob would skip a path as ignored (`.gitignore`, `.ignore`, `.git/info/exclude`, as
 * discovery reads them), for outside-change events. Each folder's rule files are read once and
 * cached (bounded); a change to a rule file drops the cache.
 */
const RULE_FILES = ['.gitignore', '.ignore'];
const MAX_FOLDERS = 20_000;

export class IgnoreOracle {
  private readonly texts = new Map<string, Promise<string[]>>();

  constructor(private readonly root: string) {}

  /** Call for every changed path: a rule file's change drops what was cached. */
  noteChange(rel: string): void {
    const name = rel.slice(rel.lastIndexOf('/') + 1);
    if (RULE_FILES.includes(name) || rel.endsWith('.git/info/exclude')) this.texts.clear();
  }

  /** `folder`: the path is a folder (trailing-`/` rules apply). */
  async ignored(rel: string, folder = false): Promise<boolean> {
    const parts = rel.split('/');
    let stack: IgnoreStack = await this.levelAt([], '');
    for (let i = 1; i < parts.length; i++) {
      const folder = parts.slice(0, i).join('/');
      // A folder the walk does not enter hides everything under it (git's rule).
      if (isIgnored(stack, folder, true)) return true;
      stack = await this.levelAt(stack, folder);
    }
    return isIgnored(stack, rel, folder);
  }

  private async levelAt(stack: IgnoreStack, folder: string): Promise<IgnoreStack> {
    return pushRules(stack, folder, await this.rulesOf(folder));
  }

  private rulesOf(folder: string): Promise<string[]> {
    let texts = this.texts.get(folder);
    if (texts === undefined) {
      if (this.texts.size >= MAX_FOLDERS) this.texts.clear();
      const dir = path.join(this.root, folder);
      // Discovery's order within a folder: .git/info/exclude, then .gitignore, then .ignore.
      // Security: only a yes/no about paths comes of these files; their text is never sent.
      const files = ['.git/info/exclude', ...RULE_FILES].map((f) => path.join(dir, f));
      texts = Promise.all(files.map((f) => readFile(f, 'utf8').catch(() => '')));
      this.texts.set(folder, texts);
    }
    return texts;
  }
}
