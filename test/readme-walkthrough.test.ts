import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnServer, type ServerProcess } from './support/server-process.js';

/**
 * The README's walk-through, block by block as written, pasted into an interactive bash and
 * (where installed) an interactive zsh, against a live server. Interactive shells are where
 * `!` history expansion and zsh's comment and glob rules bite. Needs curl and jq.
 */

const has = (command: string): boolean => spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
const TOOLS = has('curl') && has('jq');
if (!TOOLS) console.log('notice: curl or jq is missing; the README walk-through test is skipped (apt-get install -y curl jq)');
const ZSH = has('zsh');
if (TOOLS && !ZSH) console.log('notice: zsh is missing; the README walk-through runs in bash only (apt-get install -y zsh)');

/** The ```sh blocks of the README's walk-through section, in order. */
function walkthrough(): string[] {
  const readme = readFileSync('README.md', 'utf8');
  const start = readme.indexOf('## A walk-through with curl');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

function paste(
  shell: string,
  args: string[],
  script: string,
  cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(shell, args, { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd, TERM: 'dumb' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(`${script}\nexit\n`);
  });
}

/** One server for both shells, its root the `workspace` folder the walk-through writes into. */
let base: string;
let server: ServerProcess | undefined;
beforeAll(async () => {
  base = await mkdtemp(path.join(os.tmpdir(), 'sidefile-walk-'));
  if (TOOLS) server = await spawnServer({ root: path.join(base, 'workspace'), dataDir: path.join(base, 'data') });
});
afterAll(async () => {
  await server?.kill();
  await rm(base, { recursive: true, force: true });
});

const SHELLS: Array<[string, string[], boolean]> = [
  ['bash', ['--norc', '--noprofile', '-i'], TOOLS],
  ['zsh', ['-f', '-i'], TOOLS && ZSH],
];

describe('the README walk-through', () => {
  it('has the blocks the test expects, starting at the default address', () => {
    const blocks = walkthrough();
    expect(blocks.length).toBeGreaterThanOrEqual(6);
    expect(blocks[0]).toContain("B='http://127.0.0.1:8080'");
  });

  for (const [shell, args, runs] of SHELLS) {
    it.skipIf(!runs)(`works as written, pasted into an interactive ${shell}`, async () => {
      const script = walkthrough().join('\n').replace("B='http://127.0.0.1:8080'", `B='${server!.base}'`);
      const out = await paste(shell, args, script, base);
      const said = `${shell} stdout:\n${out.stdout}\nstderr:\n${out.stderr}`;
      expect(out.stderr, said).not.toMatch(/command not found|parse error|event not found|no matches found|syntax error|bad pattern/i);
      // Read, numbered; the Edit's diff; the refused Write; the notebook's cells and its edit.
      expect(out.stdout, said).toMatch(/1\s*→?\s*def greet\(\):/);
      expect(out.stdout, said).toContain('"+    return \\"hello\\""');
      expect(out.stdout, said).toMatch(/^FILE_NOT_READ$/m);
      expect(out.stdout, said).toContain('df.head()');
      expect(out.stdout, said).toMatch(/cell look/i);
      // The restore brought back the content before the Edit, on disk.
      expect(readFileSync(path.join(base, 'workspace', 'app.py'), 'utf8')).toBe('def greet():\n    return "hi"\n');
      expect(out.stdout, said).toContain('["app.py","Restore","demo"]');
      expect(readFileSync(path.join(base, 'workspace', 'analysis.ipynb'), 'utf8')).toContain('"df.describe()"');
    });
  }
});
