/** A folder listing (sandboxd's DirectoryListing). */
export interface DirectoryListing {
  path: string;
  entries: Array<{ name: string; size: number; type: 'file' | 'directory'; modified_at: string; mode: string }>;
}

/** The Files API (`/v1/files/{path}`): bytes in and out, streamed. */
export interface FilesClient {
  /** Uploads a Blob, bytes or a stream; answers the new ETag (the file's sha256 in quotes). */
  upload(path: string, body: Blob | Uint8Array | ReadableStream<Uint8Array>, opts?: { mode?: string; ifMatch?: string }): Promise<string>;
  /** The file's bytes as a stream (the answer's body), with its ETag. */
  download(path: string, opts?: { range?: string }): Promise<{ body: ReadableStream<Uint8Array>; etag: string | null; status: number }>;
  list(path: string): Promise<DirectoryListing>;
  exists(path: string): Promise<boolean>;
  remove(path: string, opts?: { recursive?: boolean; ifMatch?: string }): Promise<void>;
}

/** Each segment percent-encoded; `/` kept as the separator. */
export function filesUrl(baseUrl: string, path: string): string {
  return `${baseUrl}/v1/files/${path.split('/').map(encodeURIComponent).join('/')}`;
}

export function makeFilesClient(
  baseUrl: string,
  headers: Record<string, string>,
  doFetch: typeof fetch,
  /** Builds the client's error (a SidefileError) from an error answer. */
  toError: (response: Response) => Promise<Error>,
): FilesClient {
  const send = async (path: string, init: RequestInit & { duplex?: 'half' }, query = ''): Promise<Response> => {
    const response = await doFetch(filesUrl(baseUrl, path) + query, { ...init, headers: { ...headers, ...(init.headers as object) } });
    if (!response.ok && response.status !== 304) throw await toError(response);
    return response;
  };
  return {
    async upload(path, body, opts = {}) {
      const extra: Record<string, string> = { 'Content-Type': 'application/octet-stream' };
      if (opts.ifMatch) extra['If-Match'] = opts.ifMatch;
      const query = opts.mode ? `?mode=${encodeURIComponent(opts.mode)}` : '';
      // A stream body needs half duplex in fetch (undici).
      const response = await send(
        path,
        { method: 'PUT', body: body as NonNullable<RequestInit['body']>, headers: extra, duplex: 'half' },
        query,
      );
      return response.headers.get('etag') ?? '';
    },
    async download(path, opts = {}) {
      const response = await send(path, { method: 'GET', headers: opts.range ? { Range: opts.range } : {} });
      return { body: response.body ?? new Blob([]).stream(), etag: response.headers.get('etag'), status: response.status };
    },
    async list(path) {
      return (await (await send(path, { method: 'GET' })).json()) as DirectoryListing;
    },
    async exists(path) {
      const response = await doFetch(filesUrl(baseUrl, path), { method: 'HEAD', headers });
      if (response.status === 404) return false;
      if (response.ok) return true;
      throw await toError(response);
    },
    async remove(path, opts = {}) {
      await send(
        path,
        { method: 'DELETE', headers: opts.ifMatch ? { 'If-Match': opts.ifMatch } : {} },
        opts.recursive ? '?recursive=true' : '',
      );
    },
  };
}
