import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * The manifest of packages/client (@sidefile/client), which agents install on their own:
 * openapi-fetch is its one dependency, only dist/ ships, and `npm pack` builds dist/ first.
 * test/heavy/client-package.test.ts packs and installs it for real.
 */
interface Manifest {
  name: string;
  type?: string;
  engines?: { node?: string };
  files?: string[];
  exports?: Record<string, unknown>;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}
const readJson = <T>(file: string) => JSON.parse(readFileSync(file, 'utf8')) as T;
const client = readJson<Manifest>('packages/client/package.json');
const root = readJson<Manifest>('package.json');

describe('packages/client manifest', () => {
  it('depends on openapi-fetch only, at the version the repository tests it with', () => {
    expect(client.dependencies).toEqual({ 'openapi-fetch': root.devDependencies?.['openapi-fetch'] });
    expect(client.peerDependencies ?? {}).toEqual({});
    expect(client.optionalDependencies ?? {}).toEqual({});
    expect(Object.keys(client.devDependencies ?? {})).toEqual(['typescript']);
    expect(root.dependencies?.['openapi-fetch'], 'the server does not need openapi-fetch').toBeUndefined();
  });

  it('is an ESM package for Node 20 that ships only dist/, built on pack', () => {
    expect(client.name).toBe('@sidefile/client');
    expect(client.type).toBe('module');
    expect(client.engines).toEqual({ node: '>=20' });
    expect(client.files).toEqual(['dist']);
    expect(client.exports?.['.']).toEqual({ types: './dist/index.d.ts', default: './dist/index.js' });
    expect(client.scripts?.prepack).toBe('npm run build');
    expect(client.scripts?.build).toMatch(/tsc -p tsconfig\.json$/);
  });

  it('locks the same dependencies it declares, and carries the project licence', () => {
    const lock = readJson<{ packages: Record<string, Manifest> }>('packages/client/package-lock.json');
    expect(lock.packages['']?.dependencies).toEqual(client.dependencies);
    expect(lock.packages['']?.devDependencies).toEqual(client.devDependencies);
    const locked = Object.keys(lock.packages).filter((k) => k !== '');
    expect(locked.sort()).toEqual(['node_modules/openapi-fetch', 'node_modules/openapi-typescript-helpers', 'node_modules/typescript']);
    expect(readFileSync('packages/client/LICENSE', 'utf8')).toBe(readFileSync('LICENSE', 'utf8'));
  });
});
