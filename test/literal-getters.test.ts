import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * V8 gives each object literal with a getter its own accessor pair in the old
 * generation, and that pair keeps the getter's closure (and what it captured: a write's
 * 100 KB buffers) alive through every young GC until the next full one. Write's lazy texts
 * as literal getters made external memory grow ~40 MB/s with one client and forced a
 * mark-compact every ~0.6 s with 16. Getters belong on classes (src/write/lazy-texts.ts).
 */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** `file:line` of every getter or setter written in an object literal. */
function literalAccessors(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isGetAccessorDeclaration(node) || ts.isSetAccessorDeclaration(node)) && ts.isObjectLiteralExpression(node.parent)) {
      found.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('object literal accessors', () => {
  it('finds a literal getter, and not a class getter', () => {
    const text = 'const a = { get x() { return 1; } };\nclass B { get y() { return 2; } }\nconst c = { set z(v: number) {} };';
    expect(literalAccessors('t.ts', text)).toEqual(['t.ts:1', 't.ts:3']);
  });

  it('none in src/', () => {
    const root = path.resolve(process.cwd(), 'src');
    const found = sourceFiles(root).flatMap((file) => literalAccessors(path.relative(root, file), readFileSync(file, 'utf8')));
    expect(found).toEqual([]);
  });
});
