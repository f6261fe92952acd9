import type { ToolError } from '../errors.js';
import { unreachable } from './kernel-errors.js';

/** A kernel started for a notebook through the server's sessions API (its cwd is the notebook's folder). */
export interface StartedKernel {
  sessionId: string;
  kernelId: string;
  kernelName: string;
}

export interface KernelSpecs {
  default: string;
  names: string[];
}

/** REST calls answer within this; starting a kernel (a new process) may take longer. */
const REST_TIMEOUT_MS = 10_000;
const START_TIMEOUT_MS = 60_000;

/**
 * The documented Jupyter Server REST API (`/api/kernelspecs`, `/api/sessions`,
 * `/api/kernels/<id>/interrupt|restart`), with token auth. Kernels run in the server's
 * processes, never in sidefile's. Security: the token goes only into the Authorization header
 * and is never logged or put in an error.
 */
export class JupyterClient {
  private readonly base: string;

  constructor(
    url: string,
    private readonly token: string | null,
  ) {
    this.base = url.replace(/\/+$/, '');
  }

  /** ws(s)://…/api/kernels/<id>/channels for the kernel channels WebSocket. */
  channelsUrl(kernelId: string, clientSession: string): string {
    const ws = this.base.replace(/^http/, 'ws');
    return `${ws}/api/kernels/${encodeURIComponent(kernelId)}/channels?session_id=${encodeURIComponent(clientSession)}`;
  }

  /** Headers for the WebSocket upgrade too. */
  headers(): Record<string, string> {
    // Security: the token travels only here.
    return this.token === null ? {} : { Authorization: `token ${this.token}` };
  }

  async kernelSpecs(): Promise<KernelSpecs> {
    const body = (await this.call('GET', '/api/kernelspecs')) as { default?: unknown; kernelspecs?: Record<string, unknown> };
    const names = Object.keys(body.kernelspecs ?? {}).sort();
    return { default: typeof body.default === 'string' ? body.default : (names[0] ?? 'python3'), names };
  }

  /** A session for `path` (relative to the server's root): the kernel starts in its folder. */
  async startSession(path: string, kernelName: string): Promise<StartedKernel> {
    const body = (await this.call(
      'POST',
      '/api/sessions',
      { path, type: 'notebook', name: '', kernel: { name: kernelName } },
      START_TIMEOUT_MS,
    )) as { id?: unknown; kernel?: { id?: unknown; name?: unknown } };
    if (typeof body.id !== 'string' || typeof body.kernel?.id !== 'string')
      throw unreachable('the server answered a session without a kernel');
    return {
      sessionId: body.id,
      kernelId: body.kernel.id,
      kernelName: typeof body.kernel.name === 'string' ? body.kernel.name : kernelName,
    };
  }

  /** Ends the session and shuts its kernel down; a session already gone is fine. */
  async deleteSession(sessionId: string): Promise<void> {
    await this.call('DELETE', `/api/sessions/${encodeURIComponent(sessionId)}`, undefined, REST_TIMEOUT_MS, [404]);
  }

  async interrupt(kernelId: string): Promise<void> {
    await this.call('POST', `/api/kernels/${encodeURIComponent(kernelId)}/interrupt`, undefined, REST_TIMEOUT_MS, [404]);
  }

  async restart(kernelId: string): Promise<void> {
    await this.call('POST', `/api/kernels/${encodeURIComponent(kernelId)}/restart`, undefined, START_TIMEOUT_MS);
  }

  /** True when the server reports the kernel idle. */
  async kernelIdle(kernelId: string): Promise<boolean> {
    const body = (await this.call('GET', `/api/kernels/${encodeURIComponent(kernelId)}`, undefined, REST_TIMEOUT_MS, [404])) as {
      execution_state?: unknown;
    } | null;
    return body?.execution_state === 'idle';
  }

  /** True while the server still has the kernel. */
  async kernelExists(kernelId: string): Promise<boolean> {
    const body = await this.call('GET', `/api/kernels/${encodeURIComponent(kernelId)}`, undefined, REST_TIMEOUT_MS, [404]);
    return body !== null;
  }

  /** One JSON call; null for a status listed in `absent`. Unreachable or an error status → KERNEL_UNAVAILABLE. */
  private async call(method: string, route: string, body?: unknown, timeoutMs = REST_TIMEOUT_MS, absent: number[] = []): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(`${this.base}${route}`, {
        method,
        headers: { ...this.headers(), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'error',
      });
    } catch (err) {
      throw unreachable(describeFetchError(err));
    }
    if (absent.includes(response.status)) {
      await response.body?.cancel();
      return null;
    }
    const text = await response.text();
    if (response.status === 401 || response.status === 403) {
      throw unreachable(`it refused the token (HTTP ${response.status})`);
    }
    if (!response.ok) throw serverError(response.status, text);
    if (text === '') return {};
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw unreachable(`it answered ${method} ${route} with something that is not JSON`);
    }
  }
}

/** A failed fetch as a short reason (the URL is the operator's, never a secret; the token is not in it). */
function describeFetchError(err: unknown): string {
  const error = err as Error & { cause?: { code?: string } };
  if (error.name === 'TimeoutError') return 'no answer in time';
  return error.cause?.code ?? error.message;
}

/** An error status with the server's own message (Jupyter answers `{ "message": … }`). */
function serverError(status: number, text: string): ToolError {
  let message = '';
  try {
    const parsed = JSON.parse(text) as { message?: unknown; reason?: unknown };
    message = typeof parsed.message === 'string' ? parsed.message : typeof parsed.reason === 'string' ? parsed.reason : '';
  } catch {
    message = '';
  }
  return unreachable(`HTTP ${status}${message ? `: ${message.slice(0, 300)}` : ''}`);
}
