import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeScopedSecret, verifyScopedToken } from '../src/auth/scoped-token.js';
import { rawPost } from './support/mcp.js';
import { modernRequest } from './support/mcp-modern.js';
import { spawnServer, type ServerProcess } from './support/server-process.js';

/**
 * agent-sandbox scoped tokens, checked against vectors from an independent implementation of the
 * router's algorithm (test/fixtures/scoped-token/vectors.py, written from scopedtoken.go), both in
 * process and through the real service.
 */

const SCRIPT = path.resolve('test/fixtures/scoped-token/vectors.py');
const NAMESPACE = 'team-a';
const NAME = 'box-1';

interface Vectors {
  secret: string;
  now: number;
  skew: number;
  vectors: Array<{ case: string; token: string; valid: boolean }>;
}

function vectors(now: number): Vectors {
  return JSON.parse(execFileSync('python3', [SCRIPT, String(now), NAMESPACE, NAME], { encoding: 'utf8' })) as Vectors;
}

function hasPython(): boolean {
  try {
    execFileSync('python3', ['--version']);
    return true;
  } catch {
    return false;
  }
}

const python = hasPython();
if (!python) console.warn('scoped-token tests skipped: python3 is not installed');

describe.skipIf(!python)('scoped tokens, in process', () => {
  const fixed = vectors(1_800_000_000);
  const scope = { secret: normalizeScopedSecret(Buffer.from(fixed.secret))!, namespace: NAMESPACE, name: NAME };

  it('the vectors cover accepted and refused tokens of every kind', () => {
    expect(fixed.skew).toBe(30);
    expect(fixed.vectors.filter((v) => v.valid).map((v) => v.case)).toEqual([
      'valid',
      'valid, secret minted without the trailing newline',
      'expired, inside the skew',
      'skew edge: the last second accepted',
      'keys in other case',
      'extra claim ignored',
    ]);
    expect(fixed.vectors.length).toBe(23);
  });

  for (const vector of vectors(1_800_000_000).vectors) {
    it(`${vector.case}: ${vector.valid ? 'accepted' : 'refused'}`, () => {
      expect(verifyScopedToken(vector.token, scope, fixed.now)).toBe(vector.valid);
    });
  }

  it('a token is accepted until 30 s after its expiry, not a second longer', () => {
    const token = fixed.vectors.find((v) => v.case === 'valid')!.token;
    const exp = fixed.now + 3600;
    expect(verifyScopedToken(token, scope, exp + 29)).toBe(true);
    expect(verifyScopedToken(token, scope, exp + 30)).toBe(false);
  });

  it('a secret shorter than 32 bytes after trimming is refused', () => {
    expect(normalizeScopedSecret(Buffer.from(' 0123456789abcdef0123456789abcde\n'))).toBeNull();
    expect(normalizeScopedSecret(Buffer.from('\t0123456789abcdef0123456789abcdef\r\n'))?.toString()).toBe(
      '0123456789abcdef0123456789abcdef',
    );
  });
});

describe.skipIf(!python)('scoped tokens, through the service', () => {
  let base: string;
  let server: ServerProcess;
  let secretFile: string;
  const STATIC = 'static-token-0123456789';

  beforeAll(async () => {
    base = await mkdtemp(path.join(os.tmpdir(), 'sidefile-scoped-'));
    secretFile = path.join(base, 'secret');
    await writeFile(secretFile, vectors(0).secret);
    server = await spawnServer({
      root: path.join(base, 'ws'),
      dataDir: path.join(base, 'data'),
      args: ['--token', STATIC, '--scoped-token-secret-file', secretFile, '--sandbox-name', NAME, '--sandbox-namespace', NAMESPACE],
    });
  });
  afterAll(async () => {
    await server?.kill();
    await rm(base, { recursive: true, force: true });
  });

  const status = async (authorization: string | undefined): Promise<number> => {
    const res = await fetch(`${server.base}/v1/tools`, { headers: authorization === undefined ? {} : { authorization } });
    await res.arrayBuffer();
    return res.status;
  };

  it('answers each vector as the independent implementation decides, at the real clock', async () => {
    // The one-second edges race the real clock; they are checked in process above.
    const live = vectors(Math.floor(Date.now() / 1000)).vectors.filter((v) => !v.case.startsWith('skew edge'));
    expect(live.length).toBe(21);
    const got = [];
    for (const v of live) got.push({ case: v.case, status: await status(`Bearer ${v.token}`) });
    expect(got).toEqual(live.map((v) => ({ case: v.case, status: v.valid ? 200 : 401 })));
  });

  it('keeps accepting the static token, and refuses no token with 401 UNAUTHORIZED', async () => {
    expect(await status(`Bearer ${STATIC}`)).toBe(200);
    const res = await fetch(`${server.base}/v1/tools`);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('UNAUTHORIZED');
  });

  it('puts an MCP call that names no session in the sandbox’s session, sandbox.<namespace>.<name>', async () => {
    const token = vectors(Math.floor(Date.now() / 1000)).vectors.find((v) => v.case === 'valid')!.token;
    await writeFile(path.join(base, 'ws', 'mcp.txt'), 'one\n');
    const read = modernRequest('tools/call', { name: 'Read', arguments: { file_path: 'mcp.txt' } });
    const res = await rawPost(new URL('/mcp', server.base), read.body, { ...read.headers, authorization: `Bearer ${token}` });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const edit = (session: string) =>
      fetch(`${server.base}/v1/tools/edit`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${STATIC}`, 'x-session-id': session },
        body: JSON.stringify({ file_path: 'mcp.txt', old_string: 'one', new_string: 'two' }),
      }).then(async (r) => [r.status, ((await r.json()) as { error?: { code: string } }).error?.code ?? null]);
    expect(await edit('default')).toEqual([409, 'FILE_NOT_READ']);
    expect(await edit(`sandbox.${NAMESPACE}.${NAME}`)).toEqual([200, null]);
  });

  it('never logs the secret or a token', () => {
    const text = server.logs.join('\n');
    expect(text).not.toContain('0123456789abcdef');
    expect(text).toContain('"scopedTokens":"on"');
  });
});

function run(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('src/server.ts'), '--port', '0', ...args]);
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      resolve({ code, stderr });
    });
  });
}

describe('scoped-token settings at start-up', () => {
  let base: string;
  beforeAll(async () => {
    base = await mkdtemp(path.join(os.tmpdir(), 'sidefile-scoped-cli-'));
    await writeFile(path.join(base, 'short'), '0123456789abcdef0123456789abcde\n');
    await writeFile(path.join(base, 'good'), '0123456789abcdef0123456789abcdef\n');
  });
  afterAll(async () => rm(base, { recursive: true, force: true }));

  it('a secret under 32 bytes exits 2 naming the setting', async () => {
    const out = await run([
      '--root',
      path.join(base, 'ws'),
      '--scoped-token-secret-file',
      path.join(base, 'short'),
      '--sandbox-name',
      'a',
      '--sandbox-namespace',
      'b',
    ]);
    expect(out.code).toBe(2);
    expect(out.stderr).toMatch(
      /^sidefile: invalid --scoped-token-secret-file \(SIDEFILE_SCOPED_TOKEN_SECRET_FILE\): the secret must be at least 32 bytes/,
    );
    expect(out.stderr).not.toContain('0123456789');
  });

  it('a secret without the sandbox name or namespace exits 2', async () => {
    const noName = await run([
      '--root',
      path.join(base, 'ws'),
      '--scoped-token-secret-file',
      path.join(base, 'good'),
      '--sandbox-namespace',
      'b',
    ]);
    expect([noName.code, noName.stderr]).toEqual([2, expect.stringContaining('invalid --sandbox-name')]);
    const noNamespace = await run([
      '--root',
      path.join(base, 'ws'),
      '--scoped-token-secret-file',
      path.join(base, 'good'),
      '--sandbox-name',
      'a',
    ]);
    expect([noNamespace.code, noNamespace.stderr]).toEqual([2, expect.stringContaining('invalid --sandbox-namespace')]);
  });
});
