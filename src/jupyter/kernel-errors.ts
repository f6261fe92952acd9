import { ToolError } from '../errors.js';

/** How an operator gives sidefile a Jupyter Server (said in every "not configured" answer). */
export const CONFIGURE_HINT =
  'Start a Jupyter Server on the same workspace (jupyter server --ServerApp.root_dir=<workspace>) ' +
  'and give sidefile its address and token: --jupyter-url http://host:8888 --jupyter-token-file <file> ' +
  '(SIDEFILE_JUPYTER_URL, SIDEFILE_JUPYTER_TOKEN_FILE).';

export function notConfigured(): ToolError {
  return new ToolError('KERNEL_UNAVAILABLE', `NotebookRun needs a Jupyter Server, and none is configured. ${CONFIGURE_HINT}`);
}

/** The server did not answer (refused, timed out, or an error status). Never names the token. */
export function unreachable(why: string): ToolError {
  return new ToolError(
    'KERNEL_UNAVAILABLE',
    `The Jupyter Server cannot be reached (${why}). Check that it is running and that --jupyter-url and --jupyter-token-file point at it.`,
    { reason: why },
    { 'Retry-After': '5' },
  );
}

/**
 * The kernel died (killed, out of memory, the server stopped) while cells ran; `cells` are
 * the results so far. Thrown by the kernel channel; the tool adds the results it has.
 */
export class KernelDiedError extends Error {
  constructor(readonly why: string) {
    super(`kernel died: ${why}`);
    this.name = 'KernelDiedError';
  }
}
