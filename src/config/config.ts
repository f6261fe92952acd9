import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import iconv from 'iconv-lite';
import { z } from 'zod';
import type { ScopedTokenScope } from '../auth/scoped-token.js';
import { parseGlobList } from '../paths/globs.js';
import { SETTINGS, type SettingName } from './settings.js';
import { parseBytes, parseBytesOrZero, parseDuration } from './units.js';
import { ConfigError, fail } from './config-error.js';
import { parseScopedToken } from './scoped-setting.js';
import { parseJupyter, type JupyterSettings } from './jupyter-setting.js';
import { parseHosts, parseMetadata, parseOrigins } from './list-settings.js';

export { ConfigError } from './config-error.js';

/** --history-max-bytes when it is not set: 1 GiB. */
export const DEFAULT_HISTORY_MAX_BYTES = 1024 ** 3;

export interface AppConfig {
  /** Absolute path of the workspace root as configured (realpath taken at start-up). */
  root: string;
  host: string;
  port: number;
  token: string | null;
  readOnly: boolean;
  denyRead: string[];
  denyWrite: string[];
  /** null: derived from the real root at start-up (default). */
  dataDir: string | null;
  encodings: Array<[glob: string, encoding: string]>;
  bodyLimit: number;
  lockTimeoutMs: number;
  sessionTtlMs: number;
  historyVersions: number;
  /** Bytes of all kept versions together (--history-max-bytes); 0 keeps no history. */
  historyMaxBytes: number;
  logLevel: string;
  /** Browser origins allowed besides the service's own (normalized `scheme://host[:port]`). */
  allowedOrigins: string[];
  /** Host names served without a token besides loopback (`name` any port, or `name:port`). */
  allowedHosts: string[];
  /** Discovery budgets. */
  searchTimeoutMs: number;
  searchMaxEntries: number;
  /** Memory for read-state texts, in MiB. */
  readCacheMib: number;
  /** MCP without sessions. */
  mcpStateless: boolean;
  /** Report changes other processes make under the root (events with source "outside"). */
  watch: boolean;
  /** agent-sandbox scoped tokens accepted for this sandbox, or null. */
  scopedToken: ScopedTokenScope | null;
  /** Loopback peers need no token. */
  trustLoopback: boolean;
  /** NotebookRun's Jupyter Server (--jupyter-url, --jupyter-token-file, --max-kernels); null: none. Absent: none. */
  jupyter?: JupyterSettings | null;
  /** `--metadata KEY=VALUE` pairs that GET /v1/metadata publishes; absent: none. */
  metadata?: Record<string, string>;
}

/**
 * A whole AppConfig for code that builds one by hand (tests, benches): the root and data dir
 * given, loopback on any free port, no token, the documented defaults, then `overrides`.
 */
export function localConfig(root: string, dataDir: string, overrides: Partial<AppConfig> = {}): AppConfig {
  return {
    root,
    host: '127.0.0.1',
    port: 0,
    token: null,
    readOnly: false,
    denyRead: [],
    denyWrite: [],
    dataDir,
    encodings: [],
    bodyLimit: 32 * 1024 * 1024,
    lockTimeoutMs: 10_000,
    sessionTtlMs: 24 * 3600e3,
    historyVersions: 50,
    historyMaxBytes: DEFAULT_HISTORY_MAX_BYTES,
    logLevel: 'silent',
    allowedOrigins: [],
    allowedHosts: [],
    searchTimeoutMs: 10_000,
    searchMaxEntries: 1_000_000,
    readCacheMib: 64,
    mcpStateless: false,
    watch: false,
    scopedToken: null,
    trustLoopback: false,
    ...overrides,
  };
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function readRawSettings(args: string[], env: NodeJS.ProcessEnv): Partial<Record<SettingName, string>> {
  // node:util parseArgs on Node 20 knows no negated flags: `--no-watch` is read here.
  const negated = args.includes('--no-watch');
  const argv = args.filter((arg) => arg !== '--no-watch');
  const options = Object.fromEntries(
    Object.keys(SETTINGS).map((name) => [
      name,
      {
        type: 'boolean' in SETTINGS[name as SettingName] ? ('boolean' as const) : ('string' as const),
        ...('multiple' in SETTINGS[name as SettingName] ? { multiple: true } : {}),
      },
    ]),
  );
  let values: Record<string, string | boolean | Array<string | boolean> | undefined>;
  try {
    ({ values } = parseArgs({ args: argv, options, strict: true, allowPositionals: false }));
  } catch (err) {
    throw new ConfigError((err as Error).message.split('\n')[0]);
  }
  const raw: Partial<Record<SettingName, string>> = {};
  if (negated && values.watch === true) throw new ConfigError('give either --watch or --no-watch, not both');
  if (negated) values.watch = '0';
  for (const [name, { env: envVar }] of Object.entries(SETTINGS) as Array<[SettingName, { env: string }]>) {
    const flag = values[name];
    if (flag !== undefined) raw[name] = flag === true ? '1' : String(flag);
    else if (env[envVar] !== undefined && env[envVar] !== '') raw[name] = env[envVar];
  }
  return raw;
}

function parseInteger(name: SettingName, text: string, min: number, max: number): number {
  const schema = z.coerce.number().int().min(min).max(max);
  const parsed = schema.safeParse(/^\s*-?\d+\s*$/.test(text) ? text : NaN);
  if (!parsed.success) fail(name, `expected a whole number from ${min} to ${max}, got "${text}"`);
  return parsed.data;
}

function parseBoolean(name: SettingName, text: string): boolean {
  if (/^(1|true|yes|on)$/i.test(text)) return true;
  if (/^(0|false|no|off)$/i.test(text)) return false;
  return fail(name, `expected 1 or 0, got "${text}"`);
}

function parseEncodings(text: string): Array<[string, string]> {
  return parseGlobList(text).map((pair) => {
    const eq = pair.lastIndexOf('=');
    const glob = pair.slice(0, eq).trim();
    const encoding = pair
      .slice(eq + 1)
      .trim()
      .toLowerCase();
    if (eq <= 0 || !glob) fail('encodings', `expected glob=encoding, got "${pair}"`);
    if (!iconv.encodingExists(encoding)) fail('encodings', `unknown encoding "${encoding}"`);
    return [glob, encoding];
  });
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Default data dir, from the real root. */
export function defaultDataDir(realRoot: string, env: NodeJS.ProcessEnv): string {
  const state = env.XDG_STATE_HOME || path.join(homedir(), '.local', 'state');
  const id = createHash('sha256').update(realRoot).digest('hex').slice(0, 12);
  return path.join(state, 'sidefile', id);
}

/**
 * Builds the config from flags and env vars (flags win). Throws ConfigError naming the
 * setting for anything that does not parse. `readFile` reads --token-file.
 */
export function parseConfig(
  argv: string[],
  env: NodeJS.ProcessEnv,
  readFile: (file: string) => string | Buffer,
  cwd = process.cwd(),
): AppConfig {
  const raw = readRawSettings(argv, env);
  const root = path.resolve(cwd, raw.root ?? './workspace');
  const host = raw.host ?? '127.0.0.1';
  if (raw.token !== undefined && raw['token-file'] !== undefined) {
    fail('token-file', 'give either a token or a token file, not both');
  }
  let token = raw.token ?? null;
  if (raw['token-file'] !== undefined) {
    try {
      token = String(readFile(path.resolve(cwd, raw['token-file']))).replace(/\s+$/, '');
    } catch (err) {
      fail('token-file', `cannot read it (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    if (!token) fail('token-file', 'the file is empty');
  }
  const scopedToken = parseScopedToken(raw, (file) => readFile(path.resolve(cwd, file)));
  if (!isLoopback(host) && !token && !scopedToken) {
    fail('host', `refusing to listen on ${host} without a token: set SIDEFILE_TOKEN_FILE or SIDEFILE_TOKEN`);
  }
  const logLevel = (raw['log-level'] ?? 'info').toLowerCase();
  if (!LOG_LEVELS.includes(logLevel)) fail('log-level', `expected one of ${LOG_LEVELS.join(', ')}`);
  const bodyLimit = raw['body-limit'] === undefined ? 32 * 1024 ** 2 : parseBytes(raw['body-limit']);
  if (bodyLimit === null) fail('body-limit', `expected a size like 32MiB, got "${raw['body-limit']}"`);
  const sessionTtlMs = raw['session-ttl'] === undefined ? 24 * 3600e3 : parseDuration(raw['session-ttl']);
  if (sessionTtlMs === null) fail('session-ttl', `expected a duration like 24h, got "${raw['session-ttl']}"`);
  const historyMaxBytes = raw['history-max-bytes'] === undefined ? DEFAULT_HISTORY_MAX_BYTES : parseBytesOrZero(raw['history-max-bytes']);
  if (historyMaxBytes === null) fail('history-max-bytes', `expected a size like 1GiB or 0, got "${raw['history-max-bytes']}"`);
  const dataDir = raw['data-dir'] === undefined ? null : path.resolve(cwd, raw['data-dir']);
  if (dataDir !== null && (dataDir === root || dataDir.startsWith(root + path.sep))) {
    fail('data-dir', 'the data dir must not lie inside the workspace root');
  }
  return {
    root,
    host,
    port: raw.port === undefined ? 8080 : parseInteger('port', raw.port, 0, 65535),
    token,
    readOnly: raw['read-only'] === undefined ? false : parseBoolean('read-only', raw['read-only']),
    denyRead: raw['deny-read'] === undefined ? [] : parseGlobList(raw['deny-read']),
    denyWrite: raw['deny-write'] === undefined ? [] : parseGlobList(raw['deny-write']),
    dataDir,
    encodings: raw.encodings === undefined ? [] : parseEncodings(raw.encodings),
    bodyLimit,
    lockTimeoutMs: raw['lock-timeout-ms'] === undefined ? 10_000 : parseInteger('lock-timeout-ms', raw['lock-timeout-ms'], 1, 3_600_000),
    sessionTtlMs,
    historyVersions: raw['history-versions'] === undefined ? 50 : parseInteger('history-versions', raw['history-versions'], 0, 100_000),
    historyMaxBytes,
    logLevel,
    allowedOrigins: raw['allowed-origins'] === undefined ? [] : parseOrigins(raw['allowed-origins']),
    ...(raw.metadata === undefined ? {} : { metadata: parseMetadata(raw.metadata) }),
    allowedHosts: raw['allowed-hosts'] === undefined ? [] : parseHosts(raw['allowed-hosts']),
    ...budgets(raw),
    watch: raw.watch === undefined ? true : parseBoolean('watch', raw.watch),
    scopedToken,
    trustLoopback: raw['trust-loopback'] === undefined ? false : parseBoolean('trust-loopback', raw['trust-loopback']),
    jupyter: parseJupyter(
      raw,
      (file) => readFile(path.resolve(cwd, file)),
      (name, text) => parseInteger(name, text, 1, 256),
    ),
  };
}

function budgets(
  raw: Partial<Record<SettingName, string>>,
): Pick<AppConfig, 'searchTimeoutMs' | 'searchMaxEntries' | 'readCacheMib' | 'mcpStateless'> {
  const int = (name: SettingName, fallback: number, min: number, max: number): number =>
    raw[name] === undefined ? fallback : parseInteger(name, raw[name], min, max);
  return {
    searchTimeoutMs: int('search-timeout-ms', 10_000, 1, 3_600_000),
    searchMaxEntries: int('search-max-entries', 1_000_000, 1, 1_000_000_000),
    readCacheMib: int('read-cache-mib', 64, 0, 65_536),
    mcpStateless: raw['mcp-stateless'] === undefined ? false : parseBoolean('mcp-stateless', raw['mcp-stateless']),
  };
}

/** `--help` / `--version` anywhere on the command line: print and exit instead of starting. */
export function cliRequest(argv: readonly string[]): 'help' | 'version' | null {
  if (argv.includes('--help') || argv.includes('-h')) return 'help';
  if (argv.includes('--version')) return 'version';
  return null;
}
