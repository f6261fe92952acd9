import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION_ID_PATTERN } from '../src/history/version-id.js';
import { makeTestApp, type TestApp } from './helpers.js';

/**
 * The README, docs/, the CHANGELOG and the example and deployment texts: short enough to read,
 * free of development bookkeeping, and true where a statement can be checked against the code.
 */

const README_MAX_LINES = 250;
const BENCHMARKS_MAX_LINES = 300;

function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full, keep) : keep(name) ? [full] : [];
  });
}

const MARKDOWN = ['README.md', 'CHANGELOG.md', ...filesUnder('docs', (n) => n.endsWith('.md'))];
const TEXTS = [...MARKDOWN, ...filesUnder('examples', () => true), ...filesUnder('deploy', () => true), 'docker-compose.yml', 'Dockerfile'];
const read = (file: string): string => readFileSync(file, 'utf8');
const lines = (file: string): number => read(file).split('\n').length - (read(file).endsWith('\n') ? 1 : 0);

/**
 * Words that point at how sidefile was built rather than at what it does, which a reader of the
 * docs cannot follow: a numbered work period or tracker item, a section sign, or the name of a
 * contract document the repository does not hold. A count written before the word (`100
 * sessions`) is product language and does not match: the number must follow the word.
 */
const BOOKKEEPING: Array<[string, RegExp]> = [
  ['a numbered session', /\bsessions? \d/i],
  ['a numbered issue', /\bissues? \d/i],
  ['a section sign', /§/],
  ['the contract document', /\bSPEC\b/],
];

describe('lengths', () => {
  it(`README.md has at most ${README_MAX_LINES} lines`, () => {
    expect(lines('README.md')).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it(`docs/benchmarks.md has at most ${BENCHMARKS_MAX_LINES} lines`, () => {
    expect(lines('docs/benchmarks.md')).toBeLessThanOrEqual(BENCHMARKS_MAX_LINES);
  });
});

describe('no development bookkeeping', () => {
  it.each(TEXTS)('%s', (file) => {
    const found = read(file)
      .split('\n')
      .flatMap((line, i) => BOOKKEEPING.filter(([, re]) => re.test(line)).map(([what]) => `${file}:${i + 1}: ${what}: ${line.trim()}`));
    expect(found).toEqual([]);
  });

  it('the patterns catch what they are for and leave product language alone', () => {
    const hits = (text: string) => BOOKKEEPING.filter(([, re]) => re.test(text)).map(([what]) => what);
    // Samples made from their parts, so this file holds no such reference itself.
    const numbered = (word: string) => `${word} ${3 + 4}`;
    expect(hits(`before ${numbered('session')} the file was`)).toEqual(['a numbered session']);
    expect(hits(numbered('Issue'))).toEqual(['a numbered issue']);
    expect(hits(`as ${'SP' + 'EC'} \u00a7${7} says`)).toEqual(['a section sign', 'the contract document']);
    expect(hits('16 clients, 100 sessions, 200 files; the session that read it')).toEqual([]);
    expect(hits('a known issue: the spec of OpenAPI')).toEqual([]);
  });
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchors(file: string): Set<string> {
  const out = new Set<string>();
  for (const m of read(file).matchAll(/^#{1,6} (.+)$/gm)) {
    out.add(
      m[1]!
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-'),
    );
  }
  return out;
}

describe('links', () => {
  it.each(MARKDOWN)('%s links only to files and headings that exist', (file) => {
    const broken: string[] = [];
    for (const m of read(file).matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:/.test(target)) continue;
      const [rel, anchor] = target.split('#') as [string, string | undefined];
      const resolved = rel === '' ? file : path.join(path.dirname(file), rel);
      if (!existsSync(resolved)) broken.push(target);
      else if (anchor !== undefined && resolved.endsWith('.md') && !anchors(resolved).has(anchor)) broken.push(target);
    }
    expect(broken).toEqual([]);
  });
});

describe('docs/guarantees.md', () => {
  const doc = read('docs/guarantees.md');
  const rows = doc.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| guarantee'));

  it('names test files that exist', () => {
    const missing: string[] = [];
    for (const [, file] of doc.matchAll(/`((?:test|src)\/[^`*]+\.(?:ts|c))`/g)) if (!existsSync(file!)) missing.push(file!);
    for (const [, glob] of doc.matchAll(/`(test\/[^`]*\*[^`]*)`/g)) {
      const re = new RegExp(`^${glob!.replace(/[.]/g, '\\.').replace(/\*/g, '[^/]*')}$`);
      if (!filesUnder('test', () => true).some((f) => re.test(f))) missing.push(glob!);
    }
    expect(missing).toEqual([]);
  });

  it('quotes test names that exist in the files of the same row', () => {
    const missing: string[] = [];
    for (const row of rows) {
      const files = [...row.matchAll(/`((?:test|src)\/[^`*]+\.ts)`/g)].map((m) => read(m[1]!));
      for (const [, name] of row.matchAll(/› "…?([^"]+)"/g)) if (!files.some((text) => text.includes(name!))) missing.push(name!);
    }
    expect(missing).toEqual([]);
  });
});

describe('statements kept true', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp();
  });
  afterAll(async () => t.close());

  it('the change event shown in docs/history.md has the id format and data fields a write produces', async () => {
    const res = await t.request.post('/v1/tools/write').set('X-Session-Id', 'docs').send({ file_path: 'a.txt', content: 'x\n' });
    expect(res.status).toBe(200);
    const [frame] = t.app.services.events.framesSince('0').frames;
    expect(frame!.id).toMatch(VERSION_ID_PATTERN);
    const real = /^id: (\S+)\nevent: file_changed\ndata: (.+)\n\n$/.exec(frame!.text)!;
    expect(real[1]).toBe(frame!.id);

    const doc = read('docs/history.md');
    const shown = /```\nid: (\S+)\nevent: file_changed\ndata: (.+)\n```/.exec(doc)!;
    expect(shown[1]).toMatch(VERSION_ID_PATTERN);
    expect(Object.keys(JSON.parse(shown[2]!) as object)).toEqual(Object.keys(JSON.parse(real[2]!) as object));
    expect(doc).toContain('`Last-Event-ID`');
    expect(doc).toMatch(/like `(\d{8}T\d{9}Z-\d{6})`/);
    expect(/like `(\S+)`\)/.exec(doc)![1]).toMatch(VERSION_ID_PATTERN);
  });

  it('the empty path and `.` answer what docs/paths.md says', async () => {
    const empty = await t.request.post('/v1/tools/read').send({ file_path: '' });
    expect([empty.status, empty.body.error.code]).toEqual([400, 'INVALID_INPUT']);
    const dot = await t.request.post('/v1/tools/read').send({ file_path: '.' });
    expect([dot.status, dot.body.error.code]).toEqual([400, 'NOT_A_FILE']);
    expect(read('docs/paths.md')).toContain('The empty path is `INVALID_INPUT`');
    expect(read('docs/paths.md')).toMatch(/`\.` names the\s+root, which answers `NOT_A_FILE`/);
  });

  it('no page starts the service with the token on the command line', () => {
    for (const file of MARKDOWN) expect(read(file), file).not.toMatch(/--token[ =]["'$]/);
    expect(read('docs/mcp.md')).toContain('--token-file');
  });
});
