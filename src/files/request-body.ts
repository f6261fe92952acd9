import type { FastifyRequest } from 'fastify';
import { Busboy, type BusboyInstance } from '@fastify/busboy';
import type { Readable } from 'node:stream';
import { ToolError } from '../errors.js';

/**
 * The uploaded bytes of a PUT: a `multipart/form-data` body's `file` part, or
 * else the raw body whatever its content type (the sandboxd guide's `curl --data-binary`
 * sends `x-www-form-urlencoded`). Streamed: nothing is buffered beyond a chunk.
 */
export async function fileBody(request: FastifyRequest): Promise<AsyncIterable<Uint8Array>> {
  const type = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  if (type !== 'multipart/form-data') return request.raw;
  return multipartFile(request);
}

function missingFile(message: string): ToolError {
  return new ToolError('INVALID_INPUT', `The multipart body ${message}: send the file's bytes in a part named "file".`, {
    fields: [{ field: 'body.file', message: 'required' }],
  });
}

function multipartFile(request: FastifyRequest): Promise<Readable> {
  return new Promise((resolve, reject) => {
    let parser: BusboyInstance;
    try {
      parser = new Busboy({ headers: request.headers as { 'content-type': string }, limits: { fileSize: Infinity } });
    } catch {
      reject(missingFile('cannot be parsed (no boundary)'));
      return;
    }
    let found: Readable | null = null;
    parser.on('file', (field: string, stream: Readable) => {
      if (field !== 'file' || found !== null) {
        stream.resume();
        return;
      }
      found = stream;
      resolve(stream);
    });
    parser.on('error', () => {
      if (found) found.destroy(new Error('malformed multipart body'));
      else reject(missingFile('cannot be parsed'));
    });
    parser.on('finish', () => {
      if (!found) reject(missingFile('has no part named "file"'));
    });
    // A client gone mid-upload fails the part being read: the upload removes its temp file.
    request.raw.on('error', (err) => found?.destroy(err));
    request.raw.on('aborted', () => found?.destroy(new Error('the client went away')));
    request.raw.pipe(parser);
  });
}
