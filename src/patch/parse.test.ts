import { describe, expect, it } from 'vitest';
import { ToolError } from '../errors.js';
import { parseOperations, parsePatch } from './parse.js';

/** The PATCH_INVALID a parse throws: its line and message. */
function failure(run: () => unknown): { line: unknown; message: string; details: Record<string, unknown> } {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(ToolError);
    const e = err as ToolError;
    expect(e.code).toBe('PATCH_INVALID');
    expect(e.status).toBe(400);
    return { line: e.details.line, message: e.message, details: e.details };
  }
  throw new Error('parsed without an error');
}

const wrap = (body: string) => `*** Begin Patch\n${body}*** End Patch\n`;

describe('parsePatch (V4A)', () => {
  it('parses Add, Delete and Update with Move to and an anchored hunk', () => {
    const ops = parsePatch(
      wrap(
        '*** Add File: path/add.py\n+abc\n+def\n*** Delete File: path/delete.py\n*** Update File: path/update.py\n*** Move to: path/update2.py\n@@ def f():\n-    pass\n+    return 123\n',
      ),
    );
    expect(ops).toEqual([
      { kind: 'add', path: 'path/add.py', line: 2, lines: ['abc', 'def'] },
      { kind: 'delete', path: 'path/delete.py', line: 5 },
      {
        kind: 'update',
        path: 'path/update.py',
        line: 6,
        moveTo: 'path/update2.py',
        hunks: [
          {
            anchors: ['def f():'],
            endOfFile: false,
            line: 8,
            lines: [
              { kind: '-', text: '    pass' },
              { kind: '+', text: '    return 123' },
            ],
          },
        ],
      },
    ]);
  });

  it('reads nested @@ anchors outermost first, an empty line as empty context, and *** End of File', () => {
    const [op] = parsePatch(wrap('*** Update File: a.py\n@@ class A\n@@     def f(self):\n x = 1\n\n-y = 2\n+y = 3\n*** End of File\n'));
    expect(op).toMatchObject({
      kind: 'update',
      hunks: [
        {
          anchors: ['class A', 'def f(self):'],
          endOfFile: true,
          lines: [
            { kind: ' ', text: 'x = 1' },
            { kind: ' ', text: '' },
            { kind: '-', text: 'y = 2' },
            { kind: '+', text: 'y = 3' },
          ],
        },
      ],
    });
  });

  it('splits hunks at each @@ and accepts a first hunk without @@ (Codex)', () => {
    const [op] = parsePatch(wrap('*** Update File: a\n import foo\n+bar\n@@\n-line4\n+changed4\n'));
    expect(op?.kind === 'update' && op.hunks.map((h) => h.lines.length)).toEqual([2, 2]);
  });

  it('is lenient about whitespace around markers, CRLF patch text and a heredoc wrapper (Codex scenarios 017, 018, 020)', () => {
    const padded = ' *** Begin Patch\n  *** Update File: foo.txt\n@@\n-old\n+new\n*** End Patch \n';
    expect(parsePatch(padded)[0]).toMatchObject({ kind: 'update', path: 'foo.txt' });
    expect(parsePatch(wrap('*** Add File: a\n+x\n').replaceAll('\n', '\r\n'))).toEqual([{ kind: 'add', path: 'a', line: 2, lines: ['x'] }]);
    expect(parsePatch(`<<'EOF'\n${wrap('*** Delete File: a\n')}EOF\n`)).toEqual([{ kind: 'delete', path: 'a', line: 3 }]);
  });

  it('treats a unified-diff range after @@ as a bare @@', () => {
    const [op] = parsePatch(wrap('*** Update File: a\n@@ -1,2 +1,2 @@\n-x\n+y\n'));
    expect(op?.kind === 'update' && op.hunks[0]?.anchors).toEqual([]);
  });

  it('refuses a patch without its envelope, with the line', () => {
    expect(failure(() => parsePatch('bad')).line).toBe(1);
    expect(failure(() => parsePatch('*** Begin Patch\n*** Delete File: a\n')).line).toBe(2);
    expect(failure(() => parsePatch('')).line).toBe(1);
  });

  it('refuses a patch with no file section (Codex 005)', () => {
    const f = failure(() => parsePatch('*** Begin Patch\n*** End Patch\n'));
    expect(f.line).toBe(2);
    expect(f.message).toContain('no file section');
  });

  it('refuses an Update with no hunk (Codex 008) at the Update line', () => {
    const f = failure(() => parsePatch(wrap('*** Add File: x\n+1\n*** Update File: test.py\n')));
    expect(f.line).toBe(4);
    expect(f.message).toContain('no hunk');
  });

  it('refuses an unknown file header (Codex 013) at its line', () => {
    expect(failure(() => parsePatch(wrap('*** Frobnicate File: foo\n'))).line).toBe(2);
  });

  it('refuses a hunk line without a prefix, and a later hunk without @@', () => {
    expect(failure(() => parsePatch(wrap('*** Update File: a\n@@\nbad line\n'))).line).toBe(4);
    expect(failure(() => parsePatch(wrap('*** Update File: a\n@@\n-x\n+y\nstray\n'))).line).toBe(6);
    expect(failure(() => parsePatch(wrap('*** Update File: a\n@@ def f()\n*** End of File\n'))).line).toBe(4);
  });

  it('refuses a file named twice, as a section or as a Move target, at the second mention', () => {
    expect(failure(() => parsePatch(wrap('*** Delete File: a.txt\n*** Add File: ./a.txt\n+x\n'))).line).toBe(3);
    expect(failure(() => parsePatch(wrap('*** Add File: b.txt\n+x\n*** Update File: a.txt\n*** Move to: b.txt\n@@\n-1\n+2\n'))).line).toBe(
      4,
    );
  });

  it('refuses a header without a path', () => {
    expect(failure(() => parsePatch(wrap('*** Delete File: \n'))).line).toBe(2);
  });
});

describe('parseOperations (Responses API apply_patch_call.operation)', () => {
  it('turns create/update/delete operations into the same file operations', () => {
    const ops = parseOperations([
      { type: 'create_file', path: 'n.txt', diff: '+a\n+b\n' },
      { type: 'update_file', path: 'u.txt', diff: '@@\n-x\n+y\n', move_to: 'v.txt' },
      { type: 'delete_file', path: 'd.txt' },
    ]);
    expect(ops).toEqual([
      { kind: 'add', path: 'n.txt', line: 1, lines: ['a', 'b'] },
      {
        kind: 'update',
        path: 'u.txt',
        line: 1,
        moveTo: 'v.txt',
        hunks: [
          {
            anchors: [],
            endOfFile: false,
            line: 1,
            lines: [
              { kind: '-', text: 'x' },
              { kind: '+', text: 'y' },
            ],
          },
        ],
      },
      { kind: 'delete', path: 'd.txt', line: 1 },
    ]);
  });

  it('names the operation and the line of its diff in PATCH_INVALID', () => {
    const f = failure(() =>
      parseOperations([
        { type: 'delete_file', path: 'a' },
        { type: 'create_file', path: 'b', diff: '+ok\nno plus\n' },
      ]),
    );
    expect(f.details).toMatchObject({ operation: 1, line: 2 });
    expect(failure(() => parseOperations([{ type: 'update_file', path: 'a', diff: '' }])).details).toMatchObject({ operation: 0, line: 1 });
    expect(
      failure(() =>
        parseOperations([
          { type: 'delete_file', path: 'a' },
          { type: 'delete_file', path: 'a' },
        ]),
      ).details,
    ).toMatchObject({ operation: 1 });
  });
});
