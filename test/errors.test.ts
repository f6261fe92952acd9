import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../src/errors.js';

const SPEC = path.resolve(process.cwd(), '../shared/SPEC.md');
const HAS_SPEC = existsSync(SPEC);
if (!HAS_SPEC) console.log(`notice: ${SPEC} is absent; the comparison of the error table is skipped`);

/** The error table of the contract (../shared/SPEC.md), parsed: code → status. */
function specTable(): Record<string, number> {
  const spec = readFileSync(SPEC, 'utf8');
  const rows = [...spec.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \|/gm)];
  return Object.fromEntries(rows.map((m) => [m[1], Number(m[2])]));
}

describe('error table', () => {
  it.skipIf(!HAS_SPEC)('has exactly the codes and statuses of the contract', () => {
    const spec = specTable();
    expect(Object.keys(spec).length).toBeGreaterThan(25);
    expect(ERROR_STATUS).toEqual(spec);
  });
});
