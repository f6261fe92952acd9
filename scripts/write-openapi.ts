import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { OPENAPI_FILE, renderOpenApi } from './openapi-doc.js';

await mkdir(path.dirname(OPENAPI_FILE), { recursive: true });
await writeFile(OPENAPI_FILE, await renderOpenApi());
process.stdout.write(`wrote ${path.relative(process.cwd(), OPENAPI_FILE)}\n`);
