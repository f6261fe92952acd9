import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../src/errors.js';

/** The §4 table of SPEC.md, parsed: code → status. */
function specTable(): Record<string, number> {
  const spec = readFileSync(path.resolve(process.cwd(), '../shared/SPEC.md'), 'utf8');
  const rows = [...spec.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \|/gm)];
  return Object.fromEntries(rows.map((m) => [m[1], Number(m[2])]));
}

describe('error table', () => {
  it('has exactly the codes and statuses of SPEC §4', () => {
    const spec = specTable();
    expect(Object.keys(spec).length).toBeGreaterThan(25);
    expect(ERROR_STATUS).toEqual(spec);
  });
});
