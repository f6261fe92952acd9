/**
 * `@sidefile/client`: a typed client for sidefile's REST API, generated from the service's
 * openapi/openapi.json (`./api.ts`, written by `npm run openapi` in the repository root) plus a
 * small fetch wrapper. Its only dependency is openapi-fetch.
 *
 *   const sidefile = createSidefileClient({ baseUrl: 'http://127.0.0.1:8080', token, session: 'agent-1' });
 *   const { result, text } = await sidefile.call('read', { file_path: 'src/app.py' });
 *
 * `call` answers the tool's `{ result, text }` or throws a SidefileError carrying the error answer
 * (`code`, `message` written for the model, `details`). `raw` is an openapi-fetch client for
 * every other route (history, restore, sessions), typed from the same document.
 */
import createFetchClient, { type Client } from 'openapi-fetch';
import type { paths } from './api.js';
import { makeFilesClient, type FilesClient } from './files.js';

export type { paths } from './api.js';
export type { DirectoryListing, FilesClient } from './files.js';

type ToolPath = Extract<keyof paths, `/v1/tools/${string}`>;
/** The tool route slugs: `read`, `edit`, `write`, `notebook_edit`, … */
export type ToolSlug = ToolPath extends `/v1/tools/${infer S}` ? S : never;
type ToolPost<S extends ToolSlug> = paths[`/v1/tools/${S}`] extends { post: infer P } ? P : never;
/** The JSON body a tool takes. */
export type ToolInput<S extends ToolSlug> = ToolPost<S> extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;
/** A tool's 200 answer: `{ result, text }`. */
export type ToolAnswer<S extends ToolSlug> =
  ToolPost<S> extends { responses: { 200: { content: { 'application/json': infer A } } } } ? A : never;

export interface SidefileClientOptions {
  /** e.g. `http://127.0.0.1:8080` (no trailing slash needed). */
  baseUrl: string;
  /** Bearer token, when the service has one. */
  token?: string;
  /** X-Session-Id: one agent conversation (read-before-write state belongs to it). */
  session?: string;
  /** A fetch to use instead of the global one (tests, proxies). */
  fetch?: typeof fetch;
}

/** A sidefile error answer (`{ error: { code, message, details } }`), thrown by `call`. */
export class SidefileError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'SidefileError';
  }
}

export interface SidefileClient {
  /** Calls one tool; throws SidefileError on an error answer. */
  call<S extends ToolSlug>(slug: S, input: ToolInput<S>): Promise<ToolAnswer<S>>;
  /** The openapi-fetch client for every route, typed from openapi/openapi.json. */
  raw: Client<paths>;
  /** The Files API: upload and download of a Blob or stream, list, exists, remove. */
  files: FilesClient;
}

async function errorOf(response: Response): Promise<SidefileError> {
  const body = (await response.json().catch(() => null)) as Record<string, unknown> | null;
  const error = (body?.error ?? {}) as { code?: string; message?: string; details?: Record<string, unknown> };
  return new SidefileError(response.status, error.code ?? 'INTERNAL', error.message ?? `HTTP ${response.status}`, error.details ?? {});
}

export function createSidefileClient(options: SidefileClientOptions): SidefileClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const headers: Record<string, string> = {};
  if (options.token !== undefined) headers.Authorization = `Bearer ${options.token}`;
  if (options.session !== undefined) headers['X-Session-Id'] = options.session;
  const doFetch = options.fetch ?? globalThis.fetch;
  return {
    raw: createFetchClient<paths>({ baseUrl, headers, fetch: doFetch }),
    files: makeFilesClient(baseUrl, headers, doFetch, errorOf),
    async call(slug, input) {
      const response = await doFetch(`${baseUrl}/v1/tools/${slug}`, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: JSON.stringify(input),
      });
      if (response.ok) {
        const body = (await response.json().catch(() => null)) as Record<string, unknown> | null;
        if (body) return body as never;
      }
      throw await errorOf(response);
    },
  };
}
