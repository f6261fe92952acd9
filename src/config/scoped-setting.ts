import { MIN_SCOPED_SECRET_BYTES, normalizeScopedSecret, type ScopedTokenScope } from '../auth/scoped-token.js';
import { fail } from './config-error.js';
import type { SettingName } from './settings.js';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** The scoped-token secret and the sandbox it speaks for; null when no secret file is given. */
export function parseScopedToken(
  raw: Partial<Record<SettingName, string>>,
  readFile: (file: string) => string | Buffer,
): ScopedTokenScope | null {
  const file = raw['scoped-token-secret-file'];
  if (file === undefined) return null;
  let bytes: Buffer;
  try {
    const content = readFile(file);
    bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  } catch (err) {
    fail('scoped-token-secret-file', `cannot read it (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  // Security: the router refuses such a secret too; a short one makes every sandbox's tokens forgeable.
  const secret = normalizeScopedSecret(bytes);
  if (secret === null)
    fail('scoped-token-secret-file', `the secret must be at least ${MIN_SCOPED_SECRET_BYTES} bytes after trimming whitespace`);
  const name = raw['sandbox-name'];
  const namespace = raw['sandbox-namespace'];
  if (name === undefined) fail('sandbox-name', 'required with a scoped-token secret (the sandbox whose tokens are accepted)');
  if (namespace === undefined) fail('sandbox-namespace', 'required with a scoped-token secret (the sandbox whose tokens are accepted)');
  if (!DNS_SUBDOMAIN.test(name)) fail('sandbox-name', `expected a Kubernetes object name, got "${name}"`);
  if (!DNS_LABEL.test(namespace)) fail('sandbox-namespace', `expected a Kubernetes namespace name, got "${namespace}"`);
  return { secret, namespace, name };
}
