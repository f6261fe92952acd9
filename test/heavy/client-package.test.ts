import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile, copyFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenOnLoopback, makeTestApp, type TestApp } from '../helpers.js';

/**
 * packages/client as a user gets it: its committed files only (no node_modules, no dist), built by
 * `npm pack`, installed from the tarball into an empty project, compiled against under --strict,
 * and run against a live server. Needs the npm registry (openapi-fetch, typescript).
 */
const run = promisify(execFile);
const TOKEN = 'client-package-token';

/** The environment without npm_* variables, so a child npm never takes this project for its own. */
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));

async function npm(args: string[], cwd: string): Promise<{ stdout: string; output: string }> {
  const { stdout, stderr } = await run('npm', [...args, '--no-audit', '--no-fund', '--no-update-notifier'], {
    cwd,
    env: cleanEnv,
    maxBuffer: 16 * 1024 * 1024,
  });
  return { stdout, output: stdout + stderr };
}

/** Copies the package's tracked files (as a clean checkout has them) into `dest`. */
async function copyTracked(dest: string): Promise<void> {
  const { stdout } = await run('git', ['ls-files', '-z', '--', 'packages/client']);
  const files = stdout.split('\0').filter(Boolean);
  expect(files).toContain('packages/client/package.json');
  for (const file of files) {
    const target = path.join(dest, path.relative('packages/client', file));
    await mkdir(path.dirname(target), { recursive: true });
    await copyFile(file, target);
  }
}

/** Names of every package installed under `dir`/node_modules (from npm's hidden lockfile). */
async function installed(dir: string): Promise<string[]> {
  const lock = JSON.parse(await readFile(path.join(dir, 'node_modules/.package-lock.json'), 'utf8')) as {
    packages: Record<string, unknown>;
  };
  return Object.keys(lock.packages).map((k) => k.replace(/^.*node_modules\//, ''));
}

/** openapi-fetch and what it depends on, as installed. */
async function openapiFetchClosure(dir: string): Promise<string[]> {
  const seen = new Set<string>();
  const visit = async (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    const manifest = JSON.parse(await readFile(path.join(dir, 'node_modules', name, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    for (const dep of Object.keys(manifest.dependencies ?? {})) await visit(dep);
  };
  await visit('openapi-fetch');
  return [...seen];
}

const agentSource = (baseUrl: string) => `import { createSidefileClient, SidefileError } from '@sidefile/client';

const sidefile = createSidefileClient({ baseUrl: ${JSON.stringify(baseUrl)}, token: ${JSON.stringify(TOKEN)}, session: 'installed' });
const read = await sidefile.call('read', { file_path: 'hello.txt' });
const kind: string = read.result.type;
const edit = await sidefile.call('edit', { file_path: 'hello.txt', old_string: 'world', new_string: 'client' });
// @ts-expect-error Edit takes old_string, not old_str: the tool inputs are typed, not any.
export const typo = () => sidefile.call('edit', { file_path: 'hello.txt', old_str: 'a', new_string: 'b' });
let code = '';
try {
  await sidefile.call('read', { file_path: 'missing.txt' });
} catch (err) {
  if (err instanceof SidefileError) code = err.code;
}
console.log(JSON.stringify({ kind, read: read.text, edit: edit.text, code }));
`;

const consumerTsconfig = {
  compilerOptions: {
    strict: true,
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    lib: ['ES2022', 'DOM'],
    types: [],
    skipLibCheck: false,
  },
  files: ['agent.ts'],
};

describe('@sidefile/client installed from its packed tarball', () => {
  let base: string;
  let t: TestApp;
  beforeAll(async () => {
    base = await mkdtemp(path.join(os.tmpdir(), 'sidefile-client-pack-'));
    t = await makeTestApp({ config: { token: TOKEN } });
  });
  afterAll(async () => {
    await t.close();
    await rm(base, { recursive: true, force: true });
  });

  it('packs from a clean checkout, installs on this Node with no server dependencies, and runs a typed Read and Edit', async () => {
    const pkg = path.join(base, 'package');
    await copyTracked(pkg);
    await npm(['ci'], pkg);
    const packed = await npm(['pack', '--json', '--pack-destination', base], pkg);
    const [info] = JSON.parse(packed.stdout) as Array<{
      filename: string;
      size: number;
      entryCount: number;
      files: Array<{ path: string }>;
    }>;
    const shipped = info!.files.map((f) => f.path).sort();
    expect(shipped).toEqual([
      'LICENSE',
      'README.md',
      'dist/api.d.ts',
      'dist/api.js',
      'dist/files.d.ts',
      'dist/files.js',
      'dist/index.d.ts',
      'dist/index.js',
      'package.json',
    ]);
    expect(info!.size).toBeLessThan(100_000);
    console.log(`packed ${info!.filename}: ${info!.size} bytes, ${info!.entryCount} files (Node ${process.version})`);

    const app = path.join(base, 'app');
    await mkdir(app);
    await writeFile(path.join(app, 'package.json'), JSON.stringify({ name: 'agent', private: true, type: 'module' }));
    const install = await npm(['install', '--engine-strict', path.join(base, info!.filename)], app);
    expect(install.output).not.toMatch(/EBADENGINE/);
    const names = await installed(app);
    expect(names.sort()).toEqual(['@sidefile/client', ...(await openapiFetchClosure(app))].sort());
    for (const server of ['fastify', 'zod', 'pino', 'piscina', '@modelcontextprotocol/sdk']) expect(names).not.toContain(server);

    await writeFile(path.join(t.root, 'hello.txt'), 'hello world\n');
    await writeFile(path.join(app, 'agent.ts'), agentSource(await listenOnLoopback(t)));
    await writeFile(path.join(app, 'tsconfig.json'), JSON.stringify(consumerTsconfig));
    const tsc = await run(path.resolve('node_modules/.bin/tsc'), ['-p', app]).then(
      () => '',
      (err: { stdout: string }) => err.stdout,
    );
    expect(tsc, 'the installed package type-checks under --strict').toBe('');

    const { stdout } = await run(process.execPath, ['agent.js'], { cwd: app });
    const out = JSON.parse(stdout) as { kind: string; read: string; edit: string; code: string };
    expect(out.kind).toBe('text');
    expect(out.read).toContain('     1→hello world');
    expect(out.edit).toMatch(/hello\.txt/);
    expect(out.code).toBe('FILE_NOT_FOUND');
    expect(await readFile(path.join(t.root, 'hello.txt'), 'utf8')).toBe('hello client\n');
  }, 300_000);
});
