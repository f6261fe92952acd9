import { SETTINGS, type SettingName } from './settings.js';

/** A setting that does not parse: start-up stops with status 2 and this one-line message. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Stops start-up: the setting's flag and env var, and why its value does not parse. */
export function fail(setting: string, why: string): never {
  throw new ConfigError(`invalid --${setting} (${SETTINGS[setting as SettingName].env}): ${why}`);
}
