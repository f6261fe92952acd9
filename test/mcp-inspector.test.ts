import { execFile } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listeningApp, type ListeningApp } from './support/mcp.js';

/**
 * The MCP Inspector's CLI (the newest that runs on Node 20), one process per call as a user
 * runs it: each invocation is a new MCP connection, so read state carries over only through
 * X-Session-Id. (It looks for its package.json relative to the working folder: run from its own.)
 */
const CLI = path.resolve('node_modules/@modelcontextprotocol/inspector-cli/build/index.js');
const TOKEN = 'inspector-token';
const run = promisify(execFile);

let t: ListeningApp;
beforeAll(async () => {
  t = await listeningApp({ token: TOKEN });
  await fsp.writeFile(path.join(t.root, 'a.txt'), 'alpha\nbeta\n');
});
afterAll(async () => {
  t.app.server.closeAllConnections();
  await t.close();
});

async function inspector(args: string[], session = 'inspected'): Promise<any> {
  const headers = ['--header', `Authorization: Bearer ${TOKEN}`, '--header', `X-Session-Id: ${session}`];
  const { stdout } = await run(process.execPath, [CLI, t.mcpUrl.href, '--transport', 'http', ...headers, ...args], {
    timeout: 30_000,
    cwd: path.dirname(CLI),
  });
  return JSON.parse(stdout);
}

describe('the MCP Inspector CLI', () => {
  it('lists the tools, and runs a Read in one invocation and an Edit in the next', async () => {
    const listed = await inspector(['--method', 'tools/list']);
    expect(listed.tools.map((tool: { name: string }) => tool.name)).toEqual(t.app.tools.map((tool) => tool.name));
    const read = await inspector(['--method', 'tools/call', '--tool-name', 'Read', '--tool-arg', 'file_path=a.txt']);
    expect(read.isError).toBeFalsy();
    const edit = await inspector([
      '--method',
      'tools/call',
      '--tool-name',
      'Edit',
      '--tool-arg',
      'file_path=a.txt',
      'old_string=beta',
      'new_string=gamma',
    ]);
    expect(edit.isError).toBeFalsy();
    expect(await fsp.readFile(path.join(t.root, 'a.txt'), 'utf8')).toBe('alpha\ngamma\n');
    // Another session has read nothing.
    const refused = await inspector(
      ['--method', 'tools/call', '--tool-name', 'Edit', '--tool-arg', 'file_path=a.txt', 'old_string=gamma', 'new_string=x'],
      'other',
    );
    expect(refused.structuredContent.error.code).toBe('FILE_NOT_READ');
  }, 120_000);

  it('reads a resource', async () => {
    const res = await inspector(['--method', 'resources/read', '--uri', 'file:///a.txt']);
    expect(res.contents[0]).toMatchObject({ uri: 'file:///a.txt', mimeType: 'text/plain' });
  }, 60_000);
});
