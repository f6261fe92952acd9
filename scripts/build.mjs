// `npm run build`: bundles the service with esbuild into dist/ — one ESM file for start-up
// (dist/server.js), one entry per worker-thread module at its src/ path, and shared or lazily
// imported code in chunks lying directly in dist/. Node 20's ESM loader pays per module: ~780
// files read at start-up became ~40. Plain Node (no tsx): `npm start` runs it
// on a fresh clone. Transpile only: `npm run typecheck` (tsc) is the type check. docs/architecture.md
// (Build) says what stays outside the bundle and why.
import { readFileSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { build, transform } from 'esbuild';

/** The worker-thread modules, read from src/worker-url.ts (the list the service resolves them by). */
async function workerModules() {
  const { code } = await transform(readFileSync('src/worker-url.ts', 'utf8'), { loader: 'ts', format: 'esm' });
  const mod = await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
  return mod.WORKER_MODULES;
}

/**
 * Loaded from node_modules, not bundled: native code (@parcel/watcher and the platform package it
 * picks), packages that load their own files by path at run time (piscina's worker thread,
 * Swagger UI's static assets), the parts loaded on first use only (the MCP SDK, prom-client,
 * the OpenAPI document's @fastify/swagger, pino-pretty for a terminal: bundling them would save
 * start-up nothing), and the optional native add-ons ws tries to require.
 */
export const EXTERNAL = [
  '@parcel/watcher',
  'piscina',
  '@fastify/swagger',
  '@fastify/swagger-ui',
  '@modelcontextprotocol/sdk',
  'prom-client',
  'pino-pretty',
  'bufferutil',
  'utf-8-validate',
];

const entryPoints = { server: 'src/server.ts' };
for (const name of await workerModules()) entryPoints[name] = `src/${name}.ts`;

/** `node scripts/build.mjs [outdir]`: another folder than dist/ (tests), one level below a package.json. */
const outdir = process.argv[2] ?? 'dist';
await rm(outdir, { recursive: true, force: true });
const result = await build({
  entryPoints,
  outdir,
  // Flat: every chunk's import.meta.url is directly in dist/, as src/worker-url.ts and
  // src/version.ts expect.
  chunkNames: 'chunk-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL.flatMap((name) => [name, `${name}/*`]),
  // Bundled CommonJS dependencies (fastify, pino, ...) call require() for Node's built-ins.
  banner: { js: "import { createRequire as __sidefileRequire } from 'node:module'; const require = __sidefileRequire(import.meta.url);" },
  // Less to parse at start-up (~30% fewer bytes). Whitespace and syntax only: function names
  // stay, so stack traces still name them; `node --enable-source-maps` maps them to src/.
  minifyWhitespace: true,
  minifySyntax: true,
  sourcemap: true,
  sourcesContent: false,
  legalComments: 'linked',
  logLevel: 'warning',
  // SIDEFILE_METAFILE=<file>: esbuild's account of which module went into which output file.
  metafile: process.env.SIDEFILE_METAFILE !== undefined,
});
if (result.metafile) writeFileSync(process.env.SIDEFILE_METAFILE, JSON.stringify(result.metafile));
