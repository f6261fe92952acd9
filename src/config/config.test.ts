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
  it('has the SPEC §1 defaults', () => {
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
      logLevel: 'info',
      allowedOrigins: [],
      allowedHosts: [],
      searchTimeoutMs: 10_000,
      searchMaxEntries: 1_000_000,
      readCacheMib: 64,
      mcpStateless: false,
    });
  });

  it('takes every setting from env vars', () => {
    const c = parse([], {
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
      SIDEFILE_LOG_LEVEL: 'debug',
      SIDEFILE_ALLOWED_ORIGINS: 'https://App.example.com, http://localhost:3000/',
      SIDEFILE_ALLOWED_HOSTS: 'DevBox.lan,other.lan:7000',
      SIDEFILE_SEARCH_TIMEOUT_MS: '2500',
      SIDEFILE_SEARCH_MAX_ENTRIES: '5000',
      SIDEFILE_READ_CACHE_MIB: '16',
      SIDEFILE_MCP_STATELESS: '1',
    });
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
      logLevel: 'debug',
      allowedOrigins: ['https://app.example.com', 'http://localhost:3000'],
      allowedHosts: ['devbox.lan', 'other.lan:7000'],
      searchTimeoutMs: 2500,
      searchMaxEntries: 5000,
      readCacheMib: 16,
      mcpStateless: true,
    });
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
