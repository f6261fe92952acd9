import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.js';
import { parseConfig } from '../src/config/config.js';

export const OPENAPI_FILE = fileURLToPath(new URL('../openapi/openapi.json', import.meta.url));

/** The OpenAPI document exactly as the service serves it, as committed text. */
export async function renderOpenApi(): Promise<string> {
  const base = await mkdtemp(path.join(os.tmpdir(), 'sidefile-openapi-'));
  try {
    const config = parseConfig(['--root', path.join(base, 'ws'), '--data-dir', path.join(base, 'data')], {}, () => '');
    const app = await buildApp(config, { logger: false });
    await app.ready();
    const doc = app.swagger();
    await app.close();
    return `${JSON.stringify(doc, null, 2)}\n`;
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}
