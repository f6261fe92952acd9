/**
 * The settings table of flag → env var, default and meaning. `--help` prints it, the
 * parser reads it, and a test checks that the README's Configuration table names the same rows.
 */
export interface SettingInfo {
  env: string;
  /** Shown in --help; what applies when the setting is absent. */
  fallback: string;
  help: string;
  boolean?: true;
  /** The flag may be given more than once; its values are joined with commas. */
  multiple?: true;
}

export const SETTINGS = {
  root: { env: 'SIDEFILE_ROOT', fallback: './workspace (created if missing)', help: 'workspace root' },
  host: { env: 'SIDEFILE_HOST', fallback: '127.0.0.1', help: 'listen host (non-loopback needs a token)' },
  port: { env: 'SIDEFILE_PORT', fallback: '8080 (0 = any free port; the chosen port is logged)', help: 'listen port' },
  token: { env: 'SIDEFILE_TOKEN', fallback: 'none', help: 'bearer token (prefer --token-file: a flag shows in ps)' },
  'token-file': { env: 'SIDEFILE_TOKEN_FILE', fallback: 'none', help: 'file holding the bearer token (trailing whitespace stripped)' },
  'read-only': { env: 'SIDEFILE_READ_ONLY', fallback: 'off', help: 'refuse every write (SIDEFILE_READ_ONLY=1)', boolean: true },
  'deny-read': { env: 'SIDEFILE_DENY_READ', fallback: 'none', help: 'comma-separated globs no tool may read' },
  'deny-write': { env: 'SIDEFILE_DENY_WRITE', fallback: 'none (always: **/.git/**)', help: 'comma-separated globs no tool may write' },
  'data-dir': {
    env: 'SIDEFILE_DATA_DIR',
    fallback: '${XDG_STATE_HOME:-~/.local/state}/sidefile/<hash of root>',
    help: 'history and journal (not inside the root)',
  },
  encodings: { env: 'SIDEFILE_ENCODINGS', fallback: 'none', help: 'glob=encoding overrides, e.g. legacy/**=gbk' },
  'body-limit': { env: 'SIDEFILE_BODY_LIMIT', fallback: '32MiB', help: 'largest request body' },
  'lock-timeout-ms': { env: 'SIDEFILE_LOCK_TIMEOUT_MS', fallback: '10000', help: 'how long a write waits for its file lock' },
  'session-ttl': { env: 'SIDEFILE_SESSION_TTL', fallback: '24h', help: 'idle session expiry' },
  'history-versions': { env: 'SIDEFILE_HISTORY_VERSIONS', fallback: '50', help: 'versions kept per file' },
  'history-max-bytes': {
    env: 'SIDEFILE_HISTORY_MAX_BYTES',
    fallback: '1GiB (oldest versions dropped first; 0 keeps no history)',
    help: 'bytes of history kept in all; a larger version is not kept',
  },
  'log-level': { env: 'SIDEFILE_LOG_LEVEL', fallback: 'info', help: 'fatal, error, warn, info, debug, trace or silent' },
  'allowed-origins': {
    env: 'SIDEFILE_ALLOWED_ORIGINS',
    fallback: 'none',
    help: 'comma-separated browser origins allowed to call the API (CORS)',
  },
  'allowed-hosts': {
    env: 'SIDEFILE_ALLOWED_HOSTS',
    fallback: 'none (loopback names only)',
    help: 'comma-separated Host names served without a token',
  },
  'search-timeout-ms': { env: 'SIDEFILE_SEARCH_TIMEOUT_MS', fallback: '10000', help: 'time budget of one Glob, Grep or LS call' },
  'search-max-entries': { env: 'SIDEFILE_SEARCH_MAX_ENTRIES', fallback: '1000000', help: 'entries one Glob, Grep or LS call may visit' },
  'read-cache-mib': { env: 'SIDEFILE_READ_CACHE_MIB', fallback: '64', help: 'memory for the text of files sessions have read' },
  metadata: {
    env: 'SIDEFILE_METADATA',
    fallback: 'none',
    help: 'KEY=VALUE published by GET /v1/metadata (repeatable; env: comma-separated); never a secret',
    multiple: true,
  },
  'mcp-stateless': {
    env: 'SIDEFILE_MCP_STATELESS',
    fallback: 'off',
    help: 'serve MCP without sessions (SIDEFILE_MCP_STATELESS=1)',
    boolean: true,
  },
  watch: {
    env: 'SIDEFILE_WATCH',
    fallback: 'on (--no-watch or SIDEFILE_WATCH=0 turns it off)',
    help: 'report changes other processes make under the root as events',
    boolean: true,
  },
  'scoped-token-secret-file': {
    env: 'SIDEFILE_SCOPED_TOKEN_SECRET_FILE',
    fallback: 'none',
    help: "file holding the agent-sandbox router's scoped-token secret (at least 32 bytes)",
  },
  'sandbox-name': { env: 'SIDEFILE_SANDBOX_NAME', fallback: 'none (required with a scoped-token secret)', help: "this sandbox's name" },
  'sandbox-namespace': {
    env: 'SIDEFILE_SANDBOX_NAMESPACE',
    fallback: 'none (required with a scoped-token secret)',
    help: "this sandbox's namespace",
  },
  'trust-loopback': {
    env: 'SIDEFILE_TRUST_LOOPBACK',
    fallback: 'off',
    help: 'loopback peers need no token (everything in the pod shares its loopback)',
    boolean: true,
  },
  'max-kernels': { env: 'SIDEFILE_MAX_KERNELS', fallback: '4', help: 'Jupyter kernels NotebookRun keeps at once (more notebooks queue)' },
  'jupyter-url': {
    env: 'SIDEFILE_JUPYTER_URL',
    fallback: 'none (NotebookRun answers KERNEL_UNAVAILABLE)',
    help: 'Jupyter Server NotebookRun runs cells on, e.g. http://127.0.0.1:8888 (same workspace as its root_dir)',
  },
  'jupyter-token-file': {
    env: 'SIDEFILE_JUPYTER_TOKEN_FILE',
    fallback: 'none (a server without a token)',
    help: "file holding the Jupyter Server's token (trailing whitespace stripped)",
  },
} as const satisfies Record<string, SettingInfo>;

export type SettingName = keyof typeof SETTINGS;

/** The text `--help` prints. */
export function helpText(version: string): string {
  const rows = Object.entries(SETTINGS).map(([name, s]) => {
    const flag = (s as SettingInfo).boolean ? `--${name}` : `--${name} <value>`;
    return `  ${flag.padEnd(30)} ${s.env.padEnd(28)} ${s.help}\n  ${''.padEnd(30)} ${''.padEnd(28)} default: ${s.fallback}`;
  });
  return [
    `sidefile ${version}: file tools for remote coding agents, over HTTP, on a sandboxed workspace.`,
    '',
    'Usage: sidefile [options]     (npm start -- [options])',
    '',
    'Settings (a flag wins over its environment variable):',
    ...rows,
    '',
    `  ${'--help'.padEnd(30)} ${''.padEnd(28)} print this table and exit`,
    `  ${'--version'.padEnd(30)} ${''.padEnd(28)} print the version and exit`,
    '',
    'Ready when GET /healthz answers 200. API docs at /docs.',
    '',
  ].join('\n');
}
