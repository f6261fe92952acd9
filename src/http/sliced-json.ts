import type { FastifyInstance } from 'fastify';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { PackedHunk } from '../write/packed-hunk.js';

/**
 * Bounded work: a whole-region hunk of a 5,000,000-line rewrite is 10,000,000
 * strings, and one JSON.stringify of it holds the event loop for seconds. A large response is
 * serialized here instead, in slices of SLICE_ITEMS array items with other calls let in
 * between; the result is byte for byte what JSON.stringify gives (plain data only: no toJSON,
 * no undefined array items — tool results are zod-shaped plain objects). A PackedHunk's lines
 * are JSON already: their bytes go into the answer as they are, never parsed on the loop.
 */
const SLICE_ITEMS = 50_000;
/** Array items, summed over the value, past which a response is serialized in slices. */
const LARGE_ITEMS = 100_000;

/** A response body serialized already; the serializer sends it as it is. */
export class PreSerialized {
  constructor(readonly json: string | Buffer) {}
}

/**
 * A tool call's REST body `{ result, text }`. When the tool made that JSON already
 * (ToolOutput.json: cheaper than JSON.stringify here), it is sent as it is: the same JSON value
 * as JSON.stringify of the object would give.
 */
export function toolAnswer<R>(out: { result: R; text: string; json?: () => string | Buffer }): { result: R; text: string } {
  if (!out.json) return { result: out.result, text: out.text };
  // The route's declared body type: the serializer above sends a PreSerialized's JSON as it is.
  return new PreSerialized(out.json()) as unknown as { result: R; text: string };
}

type Parts = Array<string | Buffer>;

export function installSlicedJson(app: FastifyInstance): void {
  // Fastify sends a serializer's Buffer as it is (its type says string only).
  app.setSerializerCompiler(() => (data) => (data instanceof PreSerialized ? (data.json as string) : JSON.stringify(data)));
  // Callback style: the common small answer passes without a promise and a microtask turn.
  app.addHook('preSerialization', (_request, _reply, payload: unknown, done) => {
    if (payload instanceof PreSerialized || !isLarge(payload)) return done(null, payload);
    stringifySliced(payload).then((json) => done(null, new PreSerialized(json)), done);
  });
}

/** Counts array items down to a few levels (an ApplyPatch hunk's lines are six levels down), stopping as soon as the count is large. */
function isLarge(value: unknown, depth = 0, budget = { items: 0 }): boolean {
  // Before its members are looked at: reading `lines` would parse them.
  if (value instanceof PackedHunk) return true;
  if (typeof value === 'string') return value.length > SLICE_CHARS;
  if (depth > 7 || typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) {
    budget.items += value.length;
    if (budget.items > LARGE_ITEMS) return true;
  }
  for (const member of Array.isArray(value) ? value.slice(0, 16) : Object.values(value)) {
    if (isLarge(member, depth + 1, budget)) return true;
  }
  return false;
}

/** Characters of a string encoded or escaped between two turns of the event loop. */
const SLICE_CHARS = 4 * 1024 * 1024;

/**
 * JSON.stringify(value), in slices; a Buffer (UTF-8) when it holds a PackedHunk's bytes or is
 * long (a string of 32 MiB would be encoded to UTF-8 in one step when sent).
 */
export async function stringifySliced(value: unknown): Promise<string | Buffer> {
  const parts: Parts = [];
  await write(value, parts);
  const strings = parts.every((p) => typeof p === 'string');
  if (strings && parts.reduce((n, p) => n + p.length, 0) <= SLICE_CHARS) return parts.join('');
  // Strings between buffers are joined first: a few large Buffer.from calls, not one per key.
  const chunks: Buffer[] = [];
  let text = '';
  for (const part of parts) {
    if (typeof part === 'string' && text.length + part.length <= SLICE_CHARS) {
      text += part;
      continue;
    }
    chunks.push(Buffer.from(text, 'utf8'));
    text = '';
    if (typeof part === 'string') text = part;
    else chunks.push(part);
    await nextTurn();
  }
  chunks.push(Buffer.from(text, 'utf8'));
  return concatSliced(chunks);
}

/** Where to cut `text` near `end` so that no surrogate pair is split. */
function cutAt(text: string, end: number): number {
  if (end >= text.length) return text.length;
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

/** JSON.stringify of a long string, escaped in slices (escaping is per character). */
async function writeLongString(text: string, out: Parts): Promise<void> {
  out.push('"');
  for (let at = 0; at < text.length;) {
    const end = cutAt(text, at + SLICE_CHARS);
    out.push(JSON.stringify(text.slice(at, end)).slice(1, -1));
    at = end;
    await nextTurn();
  }
  out.push('"');
}

/** Bytes copied between two turns of the event loop (a few ms of memcpy). */
const COPY_SLICE = 8 * 1024 * 1024;

/** Buffer.concat in slices: one copy of a 65 MB answer is ~150 ms on a busy machine. */
async function concatSliced(chunks: readonly Buffer[]): Promise<Buffer> {
  const out = Buffer.allocUnsafe(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  let sinceTurn = 0;
  for (const chunk of chunks) {
    for (let from = 0; from < chunk.length; from += COPY_SLICE) {
      const piece = chunk.subarray(from, from + COPY_SLICE);
      out.set(piece, at);
      at += piece.length;
      sinceTurn += piece.length;
      if (sinceTurn >= COPY_SLICE) {
        sinceTurn = 0;
        await nextTurn();
      }
    }
  }
  return out;
}

async function write(value: unknown, out: Parts): Promise<void> {
  if (value instanceof PackedHunk) {
    const { oldStart, oldLines, newStart, newLines } = value;
    out.push(`${JSON.stringify({ oldStart, oldLines, newStart, newLines }).slice(0, -1)},"lines":`, value.linesJson, '}');
    return;
  }
  if (typeof value === 'string' && value.length > SLICE_CHARS) return writeLongString(value, out);
  if (typeof value !== 'object' || value === null) {
    out.push(JSON.stringify(value) ?? 'null');
    return;
  }
  if (Array.isArray(value)) {
    out.push('[');
    for (let i = 0; i < value.length; i += SLICE_ITEMS) {
      if (i > 0) {
        out.push(',');
        await nextTurn();
      }
      const slice = value.slice(i, i + SLICE_ITEMS);
      if (slice.some((v) => typeof v === 'object' && v !== null)) {
        for (let j = 0; j < slice.length; j += 1) {
          if (j > 0) out.push(',');
          await write(slice[j], out);
        }
      } else {
        out.push(JSON.stringify(slice).slice(1, -1));
      }
    }
    out.push(']');
    return;
  }
  out.push('{');
  let first = true;
  for (const [key, member] of Object.entries(value)) {
    if (member === undefined || typeof member === 'function') continue;
    out.push(`${first ? '' : ','}${JSON.stringify(key)}:`);
    first = false;
    await write(member, out);
  }
  out.push('}');
}
