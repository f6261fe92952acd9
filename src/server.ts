import { readFileSync } from 'node:fs';
import { buildApp } from './app.js';
import { ConfigError, parseConfig } from './config/config.js';

/** Parses config, listens, and closes gracefully on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  let config;
  try {
    config = parseConfig(process.argv.slice(2), process.env, (file) => readFileSync(file, 'utf8'));
  } catch (err) {
    return exitWithConfigError(err);
  }
  let app;
  try {
    app = await buildApp(config);
  } catch (err) {
    return exitWithConfigError(err);
  }
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
  const address = await app.listen({ host: config.host, port: config.port });
  app.log.info({ address, port: app.server.address() && (app.server.address() as { port: number }).port }, `sidefile listening on ${address}`);
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
