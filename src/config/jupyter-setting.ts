import { fail } from './config-error.js';
import type { SettingName } from './settings.js';

/** Where NotebookRun's Jupyter Server is, from --jupyter-url, --jupyter-token-file and --max-kernels. */
export interface JupyterSettings {
  url: string;
  /** Security: read from a file, never logged. */
  token: string | null;
  maxKernels: number;
}

/** Kernels at once when --max-kernels is not given. */
export const DEFAULT_MAX_KERNELS = 4;

/**
 * NotebookRun's Jupyter Server: `--jupyter-url` (http or https), its token from
 * `--jupyter-token-file` (trailing whitespace stripped), and `--max-kernels`. Null without a URL;
 * a token file or kernel count without one is accepted and unused. Security: the token is never
 * put in a message.
 */
export function parseJupyter(
  raw: Partial<Record<SettingName, string>>,
  readFile: (file: string) => string | Buffer,
  integer: (name: SettingName, text: string) => number,
): JupyterSettings | null {
  const maxKernels = raw['max-kernels'] === undefined ? DEFAULT_MAX_KERNELS : integer('max-kernels', raw['max-kernels']);
  const url = raw['jupyter-url'];
  if (url === undefined) return null;
  let parsed: URL | null = null;
  try {
    parsed = new URL(url);
  } catch {
    parsed = null;
  }
  // Security: the URL is never echoed (it may carry a password or a token).
  if (parsed !== null && (parsed.username !== '' || parsed.password !== '' || parsed.search !== '')) {
    fail('jupyter-url', 'give the bare address; put the token in --jupyter-token-file, not in the URL');
  }
  if (parsed === null || !/^https?:$/.test(parsed.protocol) || parsed.hash !== '') {
    fail('jupyter-url', "expected the server's address like http://127.0.0.1:8888");
  }
  let token: string | null = null;
  const file = raw['jupyter-token-file'];
  if (file !== undefined) {
    try {
      token = String(readFile(file)).replace(/\s+$/, '');
    } catch (err) {
      fail('jupyter-token-file', `cannot read it (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
    if (token === '') fail('jupyter-token-file', 'the file is empty');
  }
  return { url: parsed.href.replace(/\/+$/, ''), token, maxKernels };
}
