import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FILE_TYPES } from './file-types.js';

describe('Grep file types', () => {
  it('has every type name lists', () => {
    const specPath = path.resolve(process.cwd(), '../shared/SPEC.md');
    let spec: string;
    try {
      spec = readFileSync(specPath, 'utf8');
    } catch {
      console.log('SPEC.md not found beside the repo: checking the names copied from it');
      spec =
        '`type` is a ripgrep file type (`py`, `js`, `ts`, `go`, `rust`, `java`, `c`, `cpp`, `cs`, `rb`, `php`, `swift`, `kotlin`, `scala`, `sh`, `sql`, `html`, `css`, `json`, `yaml`, `toml`, `xml`, `md`, `txt`, `jupyter`, …';
    }
    const line = spec.split('\n').find((l) => l.includes('`type` is a ripgrep file type'))!;
    const rest = spec.slice(spec.indexOf(line), spec.indexOf('with ripgrep', spec.indexOf(line)));
    const names = [...rest.matchAll(/`([a-z]+)`/g)].map((m) => m[1]!).filter((n) => n !== 'type');
    expect(names.length).toBeGreaterThan(20);
    for (const name of names) expect(FILE_TYPES[name], name).toBeDefined();
  });

  it("uses ripgrep's globs", () => {
    expect(FILE_TYPES['ts']).toEqual(['*.ts', '*.tsx', '*.cts', '*.mts']);
    expect(FILE_TYPES['py']).toEqual(['*.py']);
    expect(FILE_TYPES['jupyter']).toEqual(['*.ipynb', '*.jpynb']);
  });
});
