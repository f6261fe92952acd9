import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, cliRequest, defaultDataDir, parseConfig } from './config.js';
import { SETTINGS, helpText } from './settings.js';

const noFile = (): string => {
  throw Object.assign(new Error('nope'), { code: 'ENOENT' });
};
const parse = (argv: string[], env: NodeJS.ProcessEnv = {}, readFile: (file: string) => string = noFile) =>
  parseConfig(argv, env, readFile, '/srv');

function failure(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

describe('config', () => {
  it('has the defaults', () => {
    const c = parse([]);
    expect(c).toMatchObject({
      root: '/srv/workspace',
      host: '127.0.0.1',
      port: 8080,
      token: null,
      readOnly: false,
      denyRead: [],
      denyWrite: [],
      dataDir: null,
      encodings: [],
      bodyLimit: 32 * 1024 * 1024,
      lockTimeoutMs: 10_000,
      sessionTtlMs: 86_400_000,
      historyVersions: 50,
      historyMaxBytes: 1024 ** 3,
      logLevel: 'info',
      allowedOrigins: [],
      allowedHosts: [],
      searchTimeoutMs: 10_000,
      searchMaxEntries: 1_000_000,
      readCacheMib: 64,
      mcpStateless: false,
      watch: true,
      scopedToken: null,
      trustLoopback: false,
    });
  });

  it('takes every setting from env vars', () => {
    const c = parse(
      [],
      {
        SIDEFILE_ROOT: 'ws',
        SIDEFILE_HOST: '0.0.0.0',
        SIDEFILE_PORT: '0',
        SIDEFILE_TOKEN: 't',
        SIDEFILE_READ_ONLY: '1',
        SIDEFILE_DENY_READ: 'secrets/**,{a,b}/*.env',
        SIDEFILE_DENY_WRITE: 'vendor/**',
        SIDEFILE_DATA_DIR: '/var/lib/sidefile',
        SIDEFILE_ENCODINGS: 'legacy/**=gbk,*.sjis=shift_jis',
        SIDEFILE_BODY_LIMIT: '1MiB',
        SIDEFILE_LOCK_TIMEOUT_MS: '500',
        SIDEFILE_SESSION_TTL: '30m',
        SIDEFILE_HISTORY_VERSIONS: '7',
        SIDEFILE_HISTORY_MAX_BYTES: '512MiB',
        SIDEFILE_LOG_LEVEL: 'debug',
        SIDEFILE_ALLOWED_ORIGINS: 'https://App.example.com, http://localhost:3000/',
        SIDEFILE_ALLOWED_HOSTS: 'DevBox.lan,other.lan:7000',
        SIDEFILE_SEARCH_TIMEOUT_MS: '2500',
        SIDEFILE_SEARCH_MAX_ENTRIES: '5000',
        SIDEFILE_READ_CACHE_MIB: '16',
        SIDEFILE_MCP_STATELESS: '1',
        SIDEFILE_JUPYTER_URL: 'http://jupyter:8888/',
        SIDEFILE_JUPYTER_TOKEN_FILE: 'jt',
        SIDEFILE_MAX_KERNELS: '2',
      },
      (file) => (file === path.resolve('/srv', 'jt') ? 'jtoken\n' : noFile()),
    );
    expect(c).toEqual({
      root: '/srv/ws',
      host: '0.0.0.0',
      port: 0,
      token: 't',
      readOnly: true,
      denyRead: ['secrets/**', '{a,b}/*.env'],
      denyWrite: ['vendor/**'],
      dataDir: '/var/lib/sidefile',
      encodings: [
        ['legacy/**', 'gbk'],
        ['*.sjis', 'shift_jis'],
      ],
      bodyLimit: 1024 * 1024,
      lockTimeoutMs: 500,
      sessionTtlMs: 1_800_000,
      historyVersions: 7,
      historyMaxBytes: 512 * 1024 ** 2,
      logLevel: 'debug',
      allowedOrigins: ['https://app.example.com', 'http://localhost:3000'],
      allowedHosts: ['devbox.lan', 'other.lan:7000'],
      searchTimeoutMs: 2500,
      searchMaxEntries: 5000,
      readCacheMib: 16,
      mcpStateless: true,
      watch: true,
      scopedToken: null,
      trustLoopback: false,
      jupyter: { url: 'http://jupyter:8888', token: 'jtoken', maxKernels: 2 },
    });
  });

  it('reads --history-max-bytes as plain bytes or a binary or decimal unit, 0 meaning no history', () => {
    expect(parse(['--history-max-bytes', '1GiB']).historyMaxBytes).toBe(1024 ** 3);
    expect(parse(['--history-max-bytes', '512MiB']).historyMaxBytes).toBe(512 * 1024 ** 2);
    expect(parse(['--history-max-bytes', '64KiB']).historyMaxBytes).toBe(65_536);
    expect(parse(['--history-max-bytes', '1500']).historyMaxBytes).toBe(1500);
    expect(parse(['--history-max-bytes', '2GB']).historyMaxBytes).toBe(2e9);
    expect(parse(['--history-max-bytes', '0']).historyMaxBytes).toBe(0);
    expect(parse([], { SIDEFILE_HISTORY_MAX_BYTES: '0MiB' }).historyMaxBytes).toBe(0);
    expect(parse(['--history-max-bytes', '2MiB'], { SIDEFILE_HISTORY_MAX_BYTES: '1MiB' }).historyMaxBytes).toBe(2 * 1024 ** 2);
  });

  it('lets flags win over env vars', () => {
    const c = parse(['--port', '9000', '--root', '/data/ws', '--read-only'], { SIDEFILE_PORT: '1', SIDEFILE_ROOT: 'x' });
    expect(c.port).toBe(9000);
    expect(c.root).toBe('/data/ws');
    expect(c.readOnly).toBe(true);
  });

  it('reads the token from a file, trailing whitespace stripped', () => {
    const c = parse(['--token-file', 'tok'], {}, (file) => (file === path.resolve('/srv', 'tok') ? 's3cret \n' : noFile()));
    expect(c.token).toBe('s3cret');
  });

  it.each([
    [['--port', 'abc'], /--port/],
    [['--port', '70000'], /--port/],
    [['--port', '-1'], /--port/],
    [['--log-level', 'loud'], /--log-level/],
    [['--bogus'], /bogus/],
    [['--body-limit', 'lots'], /--body-limit/],
    [['--session-ttl', 'forever'], /--session-ttl/],
    [['--lock-timeout-ms', '0'], /--lock-timeout-ms/],
    [['--history-versions', '1.5'], /--history-versions/],
    [['--history-max-bytes', 'lots'], /--history-max-bytes/],
    [['--history-max-bytes', '-1'], /--history-max-bytes/],
    [['--history-max-bytes', '1TiB'], /--history-max-bytes/],
    [['--history-max-bytes', ''], /--history-max-bytes/],
    [['--encodings', 'a=klingon'], /--encodings/],
    [['--encodings', 'nogl'], /--encodings/],
    [['--read-only=maybe'], /read-only/],
    [['--token', 'a', '--token-file', 'f'], /token/],
    [['--token-file', 'missing'], /--token-file/],
    [['--data-dir', '/srv/workspace/.state'], /--data-dir/],
    [['--data-dir', '/srv/workspace'], /--data-dir/],
    [['--host', '0.0.0.0'], /--host/],
    [['--host', '10.1.2.3'], /without a token/],
    [['--allowed-origins', 'app.example.com'], /--allowed-origins/],
    [['--allowed-origins', 'https://app.example.com/path'], /--allowed-origins/],
    [['--allowed-origins', 'null'], /--allowed-origins/],
    [['--allowed-hosts', 'evil.example/x'], /--allowed-hosts/],
    [['--allowed-hosts', 'user@host'], /--allowed-hosts/],
    [['--search-timeout-ms', '0'], /--search-timeout-ms/],
    [['--search-max-entries', 'many'], /--search-max-entries/],
    [['--read-cache-mib', '-1'], /--read-cache-mib/],
    [['--mcp-stateless=perhaps'], /--mcp-stateless/],
  ])('refuses %j with a one-line message naming the setting', (argv, pattern) => {
    const message = failure(() => parse(argv as string[]));
    expect(message).toMatch(pattern);
    expect(message).not.toContain('\n');
  });

  it('allows loopback hosts without a token and any host with one', () => {
    expect(parse(['--host', 'localhost']).host).toBe('localhost');
    expect(parse(['--host', '::1']).host).toBe('::1');
    expect(parse(['--host', '127.0.0.2']).host).toBe('127.0.0.2');
    expect(parse(['--host', '0.0.0.0', '--token', 'x']).host).toBe('0.0.0.0');
  });

  it('turns the watcher off with --no-watch or SIDEFILE_WATCH=0, and refuses both flags', () => {
    expect(parse([]).watch).toBe(true);
    expect(parse(['--no-watch']).watch).toBe(false);
    expect(parse([], { SIDEFILE_WATCH: '0' }).watch).toBe(false);
    expect(parse(['--watch'], { SIDEFILE_WATCH: '0' }).watch).toBe(true);
    expect(failure(() => parse(['--watch', '--no-watch']))).toBe('give either --watch or --no-watch, not both');
  });

  it('reads the scoped-token secret trimmed, with the sandbox it speaks for, and serves any host with it', () => {
    const secret = (): Buffer => Buffer.from('  0123456789abcdef0123456789abcdef\n');
    const args = ['--scoped-token-secret-file', 's', '--sandbox-name', 'box-1', '--sandbox-namespace', 'team-a'];
    const c = parseConfig(['--host', '0.0.0.0', ...args], {}, secret, '/srv');
    expect(c.scopedToken).toEqual({ secret: Buffer.from('0123456789abcdef0123456789abcdef'), name: 'box-1', namespace: 'team-a' });
    expect(c.token).toBeNull();
    expect(failure(() => parseConfig([...args.slice(0, 2)], {}, secret, '/srv'))).toMatch(/^invalid --sandbox-name/);
    expect(failure(() => parseConfig([...args.slice(0, 4)], {}, secret, '/srv'))).toMatch(/^invalid --sandbox-namespace/);
    expect(failure(() => parseConfig([...args.slice(0, 5), 'Team A'], {}, secret, '/srv'))).toMatch(/^invalid --sandbox-namespace/);
    expect(failure(() => parseConfig(args, {}, () => Buffer.from('short\n'), '/srv'))).toMatch(
      /^invalid --scoped-token-secret-file \(SIDEFILE_SCOPED_TOKEN_SECRET_FILE\): the secret must be at least 32 bytes/,
    );
    expect(failure(() => parse(args))).toMatch(/^invalid --scoped-token-secret-file .*cannot read it \(ENOENT\)/);
  });

  it('trusts loopback peers only when asked, and never as a reason to listen elsewhere without a token', () => {
    expect(parse([]).trustLoopback).toBe(false);
    expect(parse(['--trust-loopback']).trustLoopback).toBe(true);
    expect(failure(() => parse(['--trust-loopback', '--host', '0.0.0.0']))).toMatch(/^invalid --host/);
  });

  it('derives the default data dir from the real root', () => {
    const dir = defaultDataDir('/srv/ws', { XDG_STATE_HOME: '/state' });
    expect(dir).toMatch(/^\/state\/sidefile\/[0-9a-f]{12}$/);
    expect(defaultDataDir('/srv/ws', { XDG_STATE_HOME: '/state' })).toBe(dir);
    expect(defaultDataDir('/srv/other', { XDG_STATE_HOME: '/state' })).not.toBe(dir);
  });

  it('recognizes --help and --version anywhere, and --help lists every setting with its env var', () => {
    expect(cliRequest(['--port', '1', '--help'])).toBe('help');
    expect(cliRequest(['-h'])).toBe('help');
    expect(cliRequest(['--version'])).toBe('version');
    expect(cliRequest(['--port', '1'])).toBeNull();
    const help = helpText('9.9.9');
    expect(help).toContain('sidefile 9.9.9');
    for (const [name, s] of Object.entries(SETTINGS)) {
      expect(help).toContain(`--${name}`);
      expect(help).toContain(s.env);
    }
  });
});
