import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.js';
import { ConfigError, cliRequest, parseConfig, type AppConfig } from './config/config.js';
import { helpText } from './config/settings.js';
import { rootProblem } from './ops/root-status.js';
import { VERSION } from './version.js';

/** Parses config, listens, and closes gracefully on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const request = cliRequest(argv);
  if (request === 'help') return void process.stdout.write(helpText(VERSION));
  if (request === 'version') return void process.stdout.write(`${VERSION}\n`);
  let config;
  try {
    config = parseConfig(argv, process.env, (file) => readFileSync(file));
  } catch (err) {
    return exitWithConfigError(err);
  }
  let app;
  try {
    app = await buildApp(config);
  } catch (err) {
    return exitWithConfigError(err);
  }
  await logStartup(app, config);
  handleSignals(app);
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (err) {
    return exitListenError(err, config);
  }
  const address = app.server.address();
  const port = address !== null && typeof address === 'object' ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  app.log.info({ address: url, host: config.host, port }, `sidefile listening on ${url}`);
}

/** Root, data dir, read-only mode, whether a token is set (never the token). */
async function logStartup(app: FastifyInstance, config: AppConfig): Promise<void> {
  const { root, settings } = app.services;
  app.log.info(
    {
      version: VERSION,
      root,
      dataDir: settings.dataDir,
      readOnly: settings.readOnly,
      token: config.token === null ? 'off' : 'on',
      scopedTokens: config.scopedToken === null ? 'off' : 'on',
      trustLoopback: config.trustLoopback,
      // Security: the address only (it carries no credentials); the token is never logged.
      jupyter: config.jupyter ? config.jupyter.url : 'off',
    },
    `sidefile ${VERSION}: root ${root}, data dir ${settings.dataDir}, read-only ${settings.readOnly ? 'on' : 'off'}, token ${config.token === null ? 'off' : 'on'}`,
  );
  const problem = await rootProblem(root, settings.readOnly);
  if (problem !== null) {
    const hint = problem === 'root not writable' ? ' (writes will fail; fix the folder owner, run as its user, or use --read-only)' : '';
    app.log.warn({ reason: problem }, `${problem}${hint}; /readyz answers 503 until it is fixed`);
  }
}

function handleSignals(app: FastifyInstance): void {
  let closing = false;
  const shutdown = (signal: string): void => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down: finishing writes in flight');
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

/** A port in use (or not ours to take): one line naming it, status 2, no stack. */
function exitListenError(err: unknown, config: AppConfig): never {
  const code = (err as NodeJS.ErrnoException).code;
  const where = `${config.host} port ${config.port}`;
  const why =
    code === 'EADDRINUSE'
      ? `${where} is already in use (choose another with --port)`
      : code === 'EACCES'
        ? `${where}: permission denied (ports below 1024 need privileges)`
        : code === 'EADDRNOTAVAIL'
          ? `${where}: no such local address (check --host)`
          : `cannot listen on ${where} (${code ?? (err as Error).message})`;
  process.stderr.write(`sidefile: ${why}\n`);
  process.exit(2);
}

function exitWithConfigError(err: unknown): never {
  if (err instanceof ConfigError) {
    process.stderr.write(`sidefile: ${err.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`sidefile: cannot start: ${(err as Error).message}\n`);
  process.exit(1);
}

void main();
