import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile, cp } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { describe, expect, it } from 'vitest';
import { OPENAPI_FILE } from '../scripts/openapi-doc.js';

const run = promisify(execFile);

describe('OpenAPI for users tooling', () => {
  it('passes redocly lint (recommended rules) with no errors', async () => {
    const redocly = path.resolve('node_modules/.bin/redocly');
    const { stdout, stderr } = await run(redocly, ['lint', OPENAPI_FILE, '--extends=recommended', '--format=json'], {
      maxBuffer: 32 * 1024 * 1024,
    }).catch((err: { stdout: string; stderr: string }) => err);
    const report = JSON.parse(stdout) as { totals: { errors: number }; problems: Array<{ severity: string; message: string }> };
    const errors = report.problems.filter((p) => p.severity === 'error').map((p) => p.message);
    expect(errors, stderr).toEqual([]);
    expect(report.totals.errors).toBe(0);
  }, 120_000);

  it('generates a client (openapi-typescript + openapi-fetch) that type-checks an agent session under --strict', async () => {
    const dir = await mkdtemp(path.resolve('test/client/.tmp-'));
    try {
      const ast = await openapiTS(JSON.parse(await readFile(OPENAPI_FILE, 'utf8')));
      await writeFile(path.join(dir, 'api.d.ts'), astToString(ast));
      await cp('test/client/agent-session.ts', path.join(dir, 'agent-session.ts'));
      await writeFile(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            noEmit: true,
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            target: 'ES2022',
            lib: ['ES2023', 'DOM'],
            skipLibCheck: true,
            types: [],
          },
          files: ['agent-session.ts'],
        }),
      );
      const tsc = path.resolve('node_modules/.bin/tsc');
      const result = await run(tsc, ['-p', dir]).then(
        () => '',
        (err: { stdout: string }) => err.stdout,
      );
      expect(result).toBe('');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
