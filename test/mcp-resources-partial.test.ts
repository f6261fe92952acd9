/**
 * A text resource over 256 KiB answers as Read does without a range: the first lines that fit,
 * then Read's closing line as a second content (how far it goes, the offset to read on from),
 * in both eras; a resource read is still not a Read.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, listeningApp, mcpClient, type ListeningApp } from './support/mcp.js';
import { modernClient } from './support/mcp-modern.js';

let t: ListeningApp;
let legacy: Client;
let modern: Awaited<ReturnType<typeof modernClient>>;
beforeAll(async () => {
  t = await listeningApp();
  legacy = await mcpClient(t.mcpUrl);
  modern = await modernClient(t.mcpUrl);
  await fsp.writeFile(path.join(t.root, 'big.txt'), BIG);
  await fsp.writeFile(path.join(t.root, 'wide.txt'), WIDE);
});
afterAll(async () => {
  await legacy.close();
  await modern.close();
  await t.close();
});

/** 300 KiB of 100-byte lines. */
const BIG = Array.from({ length: 3072 }, (_, i) => `${String(i + 1).padStart(6, '0')} ${'z'.repeat(92)}`).join('\n') + '\n';
/** Over 256 KiB in three lines: each cut at 2,000 characters, the whole page fits. */
const WIDE = ['a', 'b', 'c'].map((c) => c.repeat(100_000)).join('\n');

interface TextContent {
  uri: string;
  mimeType?: string;
  text: string;
  _meta?: Record<string, unknown>;
}

describe('MCP resources/read of a text file over 256 KiB', () => {
  for (const era of ['2025', '2026'] as const) {
    it(`answers the first lines that fit and how to read on (${era})`, async () => {
      const client = era === '2025' ? legacy : modern;
      const res = await client.readResource({ uri: 'file:///big.txt' });
      const [page, note, ...more] = res.contents as TextContent[];
      expect(more).toEqual([]);
      // 100-character lines: 100,000 characters of Read's text hold fewer than 1,000 of them.
      const shown =
        /^\(Partial view: showing lines 1-(\d+) of 3072, as much as one Read returns\. To read more, call Read with offset (\d+)\.\)$/.exec(
          note!.text,
        );
      expect(shown, note!.text).not.toBeNull();
      const count = Number(shown![1]);
      expect(Number(shown![2])).toBe(count + 1);
      expect(count).toBeGreaterThan(500);
      expect(count).toBeLessThan(1000);
      // The page is the file's first lines as they are (no numbers), joined with \n.
      expect(page).toEqual({
        uri: 'file:///big.txt',
        mimeType: 'text/plain',
        text: BIG.split('\n').slice(0, count).join('\n'),
        _meta: { 'sidefile/partial': { start_line: 1, num_lines: count, total_lines: 3072 } },
      });
      expect(note).toMatchObject({ uri: 'file:///big.txt', mimeType: 'text/plain', _meta: page!._meta });
      // The note's offset reads on with the Read tool.
      const read = await call(client as Client, 'Read', { file_path: 'big.txt', offset: count + 1, limit: 1 });
      expect((read.structuredContent as { file: { content: string } }).file.content).toBe(BIG.split('\n')[count]);
    });
  }

  it('cuts long lines as Read does, and names the column to read one on from', async () => {
    const res = await legacy.readResource({ uri: 'file:///wide.txt' });
    const [page, note] = res.contents as TextContent[];
    expect(page!.text).toBe(['a', 'b', 'c'].map((c) => `${c.repeat(2000)}… [truncated]`).join('\n'));
    expect(page!._meta).toEqual({ 'sidefile/partial': { start_line: 1, num_lines: 3, total_lines: 3 } });
    expect(note!.text).toBe(
      '(Line 1 is cut at 2000 characters (2 more lines here are cut too): to read on in it, call Read with offset 1, limit 1 and column 2001.)',
    );
  });

  it('is not a Read: Edit of the file still wants one', async () => {
    // wide.txt was only read as a resource in this session.
    const edit = await call(legacy, 'Edit', { file_path: 'wide.txt', old_string: 'aaaa', new_string: 'b', replace_all: true });
    expect((edit.structuredContent as { error: { code: string } }).error.code).toBe('FILE_NOT_READ');
    expect(await fsp.readFile(path.join(t.root, 'wide.txt'), 'utf8')).toBe(WIDE);
  });
});
