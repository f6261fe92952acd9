import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../src/errors.js';

/** docs/errors.md's table, parsed: code → status, in the order written. */
function docsTable(): Array<[string, number]> {
  const doc = readFileSync('docs/errors.md', 'utf8');
  return [...doc.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \| (.+) \|$/gm)].map((m) => [m[1]!, Number(m[2])]);
}

describe('docs/errors.md', () => {
  it('lists exactly the codes and statuses of src/errors.ts, in its order', () => {
    expect(docsTable()).toEqual(Object.entries(ERROR_STATUS));
  });

  it('says when each code happens', () => {
    const doc = readFileSync('docs/errors.md', 'utf8');
    for (const m of doc.matchAll(/^\| `([A-Z_]+)` \| \d{3} \| (.*) \|$/gm)) expect(m[2]!.trim().length, m[1]).toBeGreaterThan(10);
  });
});
