import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';

/**
 * Transpiles the service (src/, minus tests) and the fault-test servers under test/support/ to
 * plain JavaScript in a temp folder, keeping the project's layout (`dist/`, `package.json`,
 * `node_modules` linked), so child processes start with plain `node` — about twice as fast as
 * through the tsx loader, which matters when a test restarts the server 50 times.
 *
 * Transpile only, no type check: a half-edited file elsewhere in the shared tree must not stop
 * the fault tests (the type check has its own CI step). Equivalent to `tsc --noCheck`.
 */

const PROJECT = process.cwd();

export interface ServerBuild {
  /** Folder standing in for the project root. */
  dir: string;
  /** `dist/server.js`: the service as `npm start` runs it. */
  server: string;
  /** The compiled file of a script under test/support (e.g. `fault-server.ts`). */
  support(name: string): string;
  remove(): Promise<void>;
}

async function listTs(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fsp.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await listTs(p)));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

async function transpile(file: string, outFile: string): Promise<void> {
  const source = await fsp.readFile(file, 'utf8');
  const { outputText } = ts.transpileModule(source, {
    fileName: file,
    // ESM out, imports kept as written (`.js` suffixes): what tsc emits for this package.
    compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022, esModuleInterop: true, isolatedModules: true },
  });
  await fsp.mkdir(path.dirname(outFile), { recursive: true });
  await fsp.writeFile(outFile, outputText);
}

/** src/x.ts → dist/x.js; test/support/y.ts → test/support/y.js (so `../../src/...` imports are rewritten to dist). */
export async function buildServer(): Promise<ServerBuild> {
  const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-build-'));
  const src = path.join(PROJECT, 'src');
  for (const file of await listTs(src)) {
    await transpile(file, path.join(dir, 'dist', path.relative(src, file)).replace(/\.ts$/, '.js'));
  }
  const support = path.join(PROJECT, 'test/support');
  for (const file of await listTs(support)) {
    const out = path.join(dir, 'test/support', path.relative(support, file)).replace(/\.ts$/, '.js');
    await transpile(file, out);
    // Support scripts import the service from ../../src/; the compiled service lives in dist/.
    const text = await fsp.readFile(out, 'utf8');
    await fsp.writeFile(out, text.replace(/(['"])\.\.\/\.\.\/src\//g, '$1../../dist/'));
  }
  await fsp.copyFile(path.join(PROJECT, 'package.json'), path.join(dir, 'package.json'));
  await fsp.symlink(path.join(PROJECT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return {
    dir,
    server: path.join(dir, 'dist/server.js'),
    support: (name) => path.join(dir, 'test/support', name.replace(/\.ts$/, '.js')),
    remove: () => fsp.rm(dir, { recursive: true, force: true }),
  };
}
