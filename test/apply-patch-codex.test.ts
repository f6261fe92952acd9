/**
 * Codex's own apply-patch scenarios (openai/codex, codex-rs/apply-patch/tests/fixtures/scenarios),
 * translated: the same input files and patch, sent to POST /v1/tools/apply_patch after the
 * session read every input file. Where sidefile differs on purpose the test says so and asserts
 * sidefile's answer: all or nothing (015), no overwrite by Add or Move (010, 011), and the
 * file's own final-line-break state (014).
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTestApp, readFully, type TestApp } from './helpers.js';

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await t.close();
});

interface Scenario {
  name: string;
  input: Record<string, string>;
  /** Folders that exist in the input (empty or not). */
  dirs?: string[];
  patch: string;
  /** The whole workspace afterwards (relative path → content). */
  expected: Record<string, string>;
  /** sidefile's error, when it refuses. */
  error?: { status: number; code: string };
}

/** Every file under the root, relative path → content. */
async function tree(): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (dir: string): Promise<void> => {
    for (const e of await fsp.readdir(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) await walk(p);
      else out[path.relative(t.root, p).split(path.sep).join('/')] = await fsp.readFile(p, 'utf8');
    }
  };
  await walk(t.root);
  return out;
}

const P = (body: string) => `*** Begin Patch\n${body}*** End Patch\n`;

const SCENARIOS: Scenario[] = [
  {
    name: '001 add file',
    input: {},
    patch: P('*** Add File: bar.md\n+This is a new file\n'),
    expected: { 'bar.md': 'This is a new file\n' },
  },
  {
    name: '002 multiple operations',
    input: { 'delete.txt': 'obsolete\n', 'modify.txt': 'line1\nline2\n' },
    patch: P('*** Add File: nested/new.txt\n+created\n*** Delete File: delete.txt\n*** Update File: modify.txt\n@@\n-line2\n+changed\n'),
    expected: { 'nested/new.txt': 'created\n', 'modify.txt': 'line1\nchanged\n' },
  },
  {
    name: '003 multiple chunks',
    input: { 'multi.txt': 'line1\nline2\nline3\nline4\n' },
    patch: P('*** Update File: multi.txt\n@@\n-line2\n+changed2\n@@\n-line4\n+changed4\n'),
    expected: { 'multi.txt': 'line1\nchanged2\nline3\nchanged4\n' },
  },
  {
    name: '004 move to a new directory',
    input: { 'old/name.txt': 'old content\n', 'old/other.txt': 'unrelated file\n' },
    patch: P('*** Update File: old/name.txt\n*** Move to: renamed/dir/name.txt\n@@\n-old content\n+new content\n'),
    expected: { 'old/other.txt': 'unrelated file\n', 'renamed/dir/name.txt': 'new content\n' },
  },
  {
    name: '005 rejects an empty patch',
    input: { 'foo.txt': 'stable\n' },
    patch: P(''),
    expected: { 'foo.txt': 'stable\n' },
    error: { status: 400, code: 'PATCH_INVALID' },
  },
  {
    name: '006 rejects missing context',
    input: { 'modify.txt': 'line1\nline2\n' },
    patch: P('*** Update File: modify.txt\n@@\n-missing\n+changed\n'),
    expected: { 'modify.txt': 'line1\nline2\n' },
    error: { status: 422, code: 'CONTEXT_NOT_FOUND' },
  },
  {
    name: '007 rejects a Delete of a missing file',
    input: { 'foo.txt': 'stable\n' },
    patch: P('*** Delete File: missing.txt\n'),
    expected: { 'foo.txt': 'stable\n' },
    error: { status: 404, code: 'FILE_NOT_FOUND' },
  },
  {
    name: '008 rejects an empty Update',
    input: { 'foo.txt': 'stable\n' },
    patch: P('*** Update File: foo.txt\n'),
    expected: { 'foo.txt': 'stable\n' },
    error: { status: 400, code: 'PATCH_INVALID' },
  },
  {
    name: '009 requires an existing file for Update',
    input: { 'foo.txt': 'stable\n' },
    patch: P('*** Update File: missing.txt\n@@\n-old\n+new\n'),
    expected: { 'foo.txt': 'stable\n' },
    error: { status: 404, code: 'FILE_NOT_FOUND' },
  },
  {
    // Codex overwrites the destination; sidefile refuses and changes nothing.
    name: '010 a Move onto an existing file is refused (Codex overwrites it)',
    input: { 'old/name.txt': 'from\n', 'old/other.txt': 'other\n', 'renamed/dir/name.txt': 'existing\n' },
    patch: P('*** Update File: old/name.txt\n*** Move to: renamed/dir/name.txt\n@@\n-from\n+new\n'),
    expected: { 'old/name.txt': 'from\n', 'old/other.txt': 'other\n', 'renamed/dir/name.txt': 'existing\n' },
    error: { status: 409, code: 'FILE_EXISTS' },
  },
  {
    name: '011 an Add of an existing file is refused (Codex overwrites it)',
    input: { 'duplicate.txt': 'old content\n' },
    patch: P('*** Add File: duplicate.txt\n+new content\n'),
    expected: { 'duplicate.txt': 'old content\n' },
    error: { status: 409, code: 'FILE_EXISTS' },
  },
  {
    name: '012 a Delete of a directory fails',
    input: { 'dir/foo.txt': 'stable\n' },
    patch: P('*** Delete File: dir\n'),
    expected: { 'dir/foo.txt': 'stable\n' },
    error: { status: 400, code: 'NOT_A_FILE' },
  },
  {
    name: '013 rejects an invalid file header',
    input: { 'foo.txt': 'stable\n' },
    patch: P('*** Frobnicate File: foo\n'),
    expected: { 'foo.txt': 'stable\n' },
    error: { status: 400, code: 'PATCH_INVALID' },
  },
  {
    // Codex adds a final line break; sidefile keeps the file's own (none), like Edit.
    name: '014 a file without a final line break keeps it that way (Codex adds one)',
    input: { 'no_newline.txt': 'no newline at end' },
    patch: P('*** Update File: no_newline.txt\n@@\n-no newline at end\n+first line\n+second line\n'),
    expected: { 'no_newline.txt': 'first line\nsecond line' },
  },
  {
    // Codex leaves created.txt behind; sidefile writes nothing.
    name: '015 a failure after a good file leaves nothing (Codex leaves the first change)',
    input: {},
    patch: P('*** Add File: created.txt\n+hello\n*** Update File: missing.txt\n@@\n-old\n+new\n'),
    expected: {},
    error: { status: 404, code: 'FILE_NOT_FOUND' },
  },
  {
    name: '016 a hunk of only added lines appends',
    input: { 'input.txt': 'line1\nline2\n' },
    patch: P('*** Update File: input.txt\n@@\n+added line 1\n+added line 2\n'),
    expected: { 'input.txt': 'line1\nline2\nadded line 1\nadded line 2\n' },
  },
  {
    name: '017 whitespace-padded file header',
    input: { 'foo.txt': 'old\n' },
    patch: P('  *** Update File: foo.txt\n@@\n-old\n+new\n'),
    expected: { 'foo.txt': 'new\n' },
  },
  {
    name: '018 whitespace-padded patch markers',
    input: { 'file.txt': 'one\n' },
    patch: ' *** Begin Patch\n*** Update File: file.txt\n@@\n-one\n+two\n*** End Patch \n',
    expected: { 'file.txt': 'two\n' },
  },
  {
    name: '019 unicode',
    input: { 'foo.txt': 'line1\nnaïve café\nline3\n' },
    patch: P('*** Update File: foo.txt\n@@\n line1\n-naïve café\n+naïve café ✅\n'),
    expected: { 'foo.txt': 'line1\nnaïve café ✅\nline3\n' },
  },
  {
    name: '020 delete file',
    input: { 'keep.txt': 'keep\n', 'obsolete.txt': 'gone\n' },
    patch: P('*** Delete File: obsolete.txt\n'),
    expected: { 'keep.txt': 'keep\n' },
  },
  {
    name: '020 whitespace-padded marker lines',
    input: { 'file.txt': 'one\n' },
    patch: '*** Begin Patch \n*** Update File: file.txt\n@@\n-one\n+two\n *** End Patch\n',
    expected: { 'file.txt': 'two\n' },
  },
  {
    name: '021 deletion only',
    input: { 'lines.txt': 'line1\nline2\nline3\n' },
    patch: P('*** Update File: lines.txt\n@@\n line1\n-line2\n line3\n'),
    expected: { 'lines.txt': 'line1\nline3\n' },
  },
  {
    name: '022 *** End of File',
    input: { 'tail.txt': 'first\nsecond\n' },
    patch: P('*** Update File: tail.txt\n@@\n first\n-second\n+second updated\n*** End of File\n'),
    expected: { 'tail.txt': 'first\nsecond updated\n' },
  },
];

describe("Codex's apply-patch scenarios, through POST /v1/tools/apply_patch", () => {
  for (const s of SCENARIOS) {
    it(s.name, async () => {
      for (const [rel, content] of Object.entries(s.input)) {
        await fsp.mkdir(path.dirname(path.join(t.root, rel)), { recursive: true });
        await fsp.writeFile(path.join(t.root, rel), content);
        await readFully(t, rel);
      }
      const res = await t.request.post('/v1/tools/apply_patch').send({ patch: s.patch });
      if (s.error) {
        expect(res.status, JSON.stringify(res.body)).toBe(s.error.status);
        expect(res.body.error.code).toBe(s.error.code);
      } else {
        expect(res.status, JSON.stringify(res.body)).toBe(200);
      }
      expect(await tree()).toEqual(s.expected);
    });
  }
});
