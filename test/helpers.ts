import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import supertest from 'supertest';
import { buildApp, type BuildOptions } from '../src/app.js';
import { localConfig, type AppConfig } from '../src/config/config.js';

export const CORPUS = path.resolve(process.cwd(), '../shared/corpus');

export interface TestApp {
  app: FastifyInstance;
  /** Real path of the temp workspace root. */
  root: string;
  dataDir: string;
  /** supertest bound to the app's server. */
  request: supertest.Agent;
  close(): Promise<void>;
}

/** The whole config tests build an app from (src/config/config.ts localConfig). */
export { localConfig as testConfig } from '../src/config/config.js';

/** A fresh app on a fresh temp workspace and data dir; `close()` removes both. */
export async function makeTestApp(opts: { config?: Partial<AppConfig>; build?: BuildOptions } = {}): Promise<TestApp> {
  const base = await mkdtemp(path.join(os.tmpdir(), 'sidefile-test-'));
  const root = path.join(base, 'ws');
  const dataDir = path.join(base, 'data');
  const app = await buildApp(localConfig(root, dataDir, opts.config), { logger: false, ...opts.build });
  await app.ready();
  return {
    app,
    root: app.services.root,
    dataDir: app.services.settings.dataDir,
    request: supertest.agent(app.server),
    close: async () => {
      await app.close();
      await rm(base, { recursive: true, force: true });
    },
  };
}

/** A full Read of `rel` in `session`, through the Read tool: what a write needs first. */
export async function readFully(t: TestApp, rel: string, session = 'default'): Promise<void> {
  const res = await t.request.post('/v1/tools/read').set('X-Session-Id', session).send({ file_path: rel });
  if (res.status !== 200) throw new Error(`Read of ${rel} answered ${res.status}: ${JSON.stringify(res.body)}`);
}

/** Makes the app listen on a free loopback port (for real HTTP clients); answers its base URL. */
export async function listenOnLoopback(t: TestApp): Promise<string> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}
