import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers.js';

/**
 * A body over the limit gets a readable `413 PAYLOAD_TOO_LARGE` even from a client
 * that sends the whole body before it reads the answer. Against a real listening server: the
 * failure (EPIPE / ECONNRESET instead of the answer) lives in the TCP close.
 */

const LIMIT = 256 * 1024;
const BIG = JSON.stringify({ file_path: 'big.txt', content: 'x'.repeat(4 * 1024 * 1024) });
const TRIES = 20;

let t: TestApp;
let port: number;

beforeAll(async () => {
  t = await makeTestApp({ config: { bodyLimit: LIMIT } });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as { port: number }).port;
});
afterAll(async () => t.close());

/** node:http, writing the whole body (with or without Content-Length) before reading. */
function nodeHttp(chunked: boolean): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { 'content-type': 'application/json' };
    if (!chunked) headers['content-length'] = Buffer.byteLength(BIG);
    const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/tools/write', headers, agent: false });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (chunked) {
      for (let i = 0; i < BIG.length; i += 65536) req.write(BIG.slice(i, i + 65536));
      req.end();
    } else {
      req.end(BIG);
    }
  });
}

/** A raw socket that reads nothing until every byte of the request is written (a strict writer-first client). */
function writeThenRead(route = '/v1/tools/write'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.pause();
    const head = `POST ${route} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(BIG)}\r\n\r\n`;
    socket.on('error', reject);
    socket.write(head);
    socket.write(BIG, () => {
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
        resolve({ status, body: text.slice(text.indexOf('\r\n\r\n') + 4) });
      });
      socket.resume();
    });
  });
}

async function viaFetch(): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${port}/v1/tools/write`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: BIG,
  });
  return { status: res.status, body: await res.text() };
}

function viaCurl(file: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('curl', [
      '-sS',
      '-w',
      '\n%{http_code}',
      '-H',
      'Content-Type: application/json',
      '--data-binary',
      `@${file}`,
      `http://127.0.0.1:${port}/v1/tools/write`,
    ]);
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`curl exit ${code}: ${err.trim()}`));
      const cut = out.lastIndexOf('\n');
      resolve({ status: Number(out.slice(cut + 1)), body: out.slice(0, cut) });
    });
  });
}

/** Each try's outcome: `413 PAYLOAD_TOO_LARGE` when readable, else what the client saw. */
async function outcomes(tries: number, one: () => Promise<{ status: number; body: string }>): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i < tries; i++) {
    try {
      const res = await one();
      seen.push(`${res.status} ${(JSON.parse(res.body) as { error: { code: string } }).error.code}`);
    } catch (err) {
      seen.push(`error ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  return seen;
}

describe('a body over the limit', () => {
  const readable = Array.from({ length: TRIES }, () => '413 PAYLOAD_TOO_LARGE');

  it(`answers node:http a readable 413, ${TRIES} tries with Content-Length`, async () => {
    expect(await outcomes(TRIES, () => nodeHttp(false))).toEqual(readable);
  });

  it(`answers node:http a readable 413, ${TRIES} tries chunked`, async () => {
    expect(await outcomes(TRIES, () => nodeHttp(true))).toEqual(readable);
  });

  it(`answers a client that reads only after writing everything a readable 413, ${TRIES} tries`, async () => {
    expect(await outcomes(TRIES, writeThenRead)).toEqual(readable);
  });

  it(`answers fetch (undici) a readable 413, ${TRIES} tries`, async () => {
    expect(await outcomes(TRIES, viaFetch)).toEqual(readable);
  });

  it.skipIf(!existsSync('/usr/bin/curl'))(`answers curl a readable 413, ${TRIES} tries`, async () => {
    const file = path.join(t.dataDir, '..', 'big.json');
    await writeFile(file, BIG);
    expect(await outcomes(TRIES, () => viaCurl(file))).toEqual(readable);
  });

  it('names the limit and the setting in the answer', async () => {
    const res = await writeThenRead();
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual({
      error: {
        code: 'PAYLOAD_TOO_LARGE',
        message: 'The request body is over the 256 KiB limit (--body-limit, SIDEFILE_BODY_LIMIT); send less content per call.',
        details: { limit: LIMIT },
      },
    });
  });

  it(`answers the Anthropic text editor route's over-limit body as a readable tool_result naming the limit, ${TRIES} tries`, async () => {
    const seen: string[] = [];
    for (let i = 0; i < TRIES; i++) {
      try {
        const res = await writeThenRead('/v1/compat/anthropic/text-editor');
        const body = JSON.parse(res.body) as { content: string; is_error: boolean };
        seen.push(`${res.status} ${body.is_error} ${body.content}`);
      } catch (err) {
        seen.push(`error ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
    }
    const answer = '200 true The request body is over the 256 KiB limit (--body-limit, SIDEFILE_BODY_LIMIT); send less content per call.';
    expect(seen).toEqual(Array.from({ length: TRIES }, () => answer));
  });

  it('answers concurrent over-limit bodies all readably, writes nothing, and keeps serving', async () => {
    const seen = (await Promise.all(Array.from({ length: 10 }, () => outcomes(1, () => nodeHttp(false))))).flat();
    expect(seen).toEqual(Array.from({ length: 10 }, () => '413 PAYLOAD_TOO_LARGE'));
    expect(existsSync(path.join(t.root, 'big.txt'))).toBe(false);
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
  });
});
