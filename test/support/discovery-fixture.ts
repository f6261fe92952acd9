import { mkdir, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** One fixed modification time, so "newest first" falls back to path order where a test wants that. */
export const T0 = new Date('2026-01-02T03:04:05.000Z');

/** Writes files (parents created) and gives each the mtime T0 (+ `ageSeconds` earlier when given). */
export async function writeTree(root: string, files: Record<string, string | Buffer>, when: Date = T0): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(root, rel);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
    await utimes(file, when, when);
  }
}

/**
 * The ignore-rules fixture: nested .gitignore files with negations, .git/info/exclude, .ignore,
 * a denied folder and file, and links in, out, to a folder and dangling. `outside` is a folder
 * beside the root holding a file a link points at.
 */
export async function buildIgnoreFixture(root: string, outside: string): Promise<void> {
  await writeTree(root, {
    '.gitignore': '*.log\n!keep.log\nbuild/\n/top-only.txt\n',
    '.ignore': 'secret-notes.md\n',
    '.git/HEAD': 'ref: refs/heads/main\n',
    '.git/config': '[core]\n',
    '.git/info/exclude': 'excluded.txt\n',
    'a.ts': 'export const a = 1;\n',
    'b.log': 'log line\n',
    'keep.log': 'kept\n',
    'top-only.txt': 'ignored at the top\n',
    'excluded.txt': 'excluded by .git/info/exclude\n',
    'secret-notes.md': 'ignored by .ignore\n',
    'x.tmp': 'tmp at the top is not ignored\n',
    'build/out.ts': 'built\n',
    'sub/.gitignore': '!b2.log\n*.tmp\n',
    'sub/b2.log': 're-included by a deeper negation\n',
    'sub/x.tmp': 'ignored by sub/.gitignore\n',
    'sub/top-only.txt': 'anchored pattern does not reach here\n',
    'sub/build/x.ts': 'ignored folder at any depth\n',
    'sub/deeper/.gitignore': '!*.tmp\n',
    'sub/deeper/y.tmp': 're-included again\n',
    'secrets/key.txt': 'SECRET-KEY\n',
    'z.pem': 'PEM\n',
  });
  await writeTree(outside, { 'file.ts': 'OUTSIDE-CONTENT\n' });
  await symlink('a.ts', path.join(root, 'link-in.ts'));
  await symlink(path.join(outside, 'file.ts'), path.join(root, 'link-out.ts'));
  await symlink('sub', path.join(root, 'link-dir'));
  await symlink('missing.ts', path.join(root, 'dangling.ts'));
  await symlink(outside, path.join(root, 'outdir'));
  for (const dir of ['sub', 'sub/deeper', 'build', 'secrets']) await utimes(path.join(root, dir), T0, T0);
}

/** The files of the fixture a walk shows by default, in path order. */
export const VISIBLE = [
  '.gitignore',
  '.ignore',
  'a.ts',
  'keep.log',
  'link-in.ts',
  'sub/.gitignore',
  'sub/b2.log',
  'sub/deeper/.gitignore',
  'sub/deeper/y.tmp',
  'sub/top-only.txt',
  'x.tmp',
];

/** What include_ignored adds. */
export const IGNORED = ['b.log', 'build/out.ts', 'excluded.txt', 'secret-notes.md', 'sub/build/x.ts', 'sub/x.tmp', 'top-only.txt'];

export const DENY_READ = ['secrets/**', '**/*.pem'];
