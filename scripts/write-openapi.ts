import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CLIENT_TYPES_FILE, OPENAPI_FILE, renderClientTypes, renderOpenApi } from './openapi-doc.js';

const doc = await renderOpenApi();
await mkdir(path.dirname(OPENAPI_FILE), { recursive: true });
await writeFile(OPENAPI_FILE, doc);
await writeFile(CLIENT_TYPES_FILE, await renderClientTypes(doc));
for (const file of [OPENAPI_FILE, CLIENT_TYPES_FILE]) process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
