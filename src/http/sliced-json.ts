import type { FastifyInstance } from 'fastify';
import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * SPEC §8 "Bounded work": a whole-region hunk of a 5,000,000-line rewrite is 10,000,000
 * strings, and one JSON.stringify of it holds the event loop for seconds. A large response is
 * serialized here instead, in slices of SLICE_ITEMS array items with other calls let in
 * between; the result is byte for byte what JSON.stringify gives (plain data only: no toJSON,
 * no undefined array items — tool results are zod-shaped plain objects).
 */
const SLICE_ITEMS = 50_000;
/** Array items, summed over the value, past which a response is serialized in slices. */
const LARGE_ITEMS = 100_000;

/** A response body serialized already; the serializer sends its text as it is. */
export class PreSerialized {
  constructor(readonly json: string) {}
}

/**
 * A tool call's REST body `{ result, text }`. When the tool JSON-encoded its text already
 * (ToolOutput.textJson: cheaper than JSON.stringify here), that literal is spliced in: the
 * same JSON value as JSON.stringify of the object would give.
 */
export function toolAnswer<R>(out: { result: R; text: string; textJson?: () => string }): { result: R; text: string } {
  if (!out.textJson) return { result: out.result, text: out.text };
  const json = new PreSerialized(`{"result":${JSON.stringify(out.result)},"text":${out.textJson()}}`);
  // The route's declared body type: the serializer above sends a PreSerialized's JSON as it is.
  return json as unknown as { result: R; text: string };
}

export function installSlicedJson(app: FastifyInstance): void {
  app.setSerializerCompiler(() => (data) => (data instanceof PreSerialized ? data.json : JSON.stringify(data)));
  app.addHook('preSerialization', async (_request, _reply, payload: unknown) => {
    if (payload instanceof PreSerialized || !isLarge(payload)) return payload;
    return new PreSerialized(await stringifySliced(payload));
  });
}

/** Counts array items down to a few levels, stopping as soon as the count is large. */
function isLarge(value: unknown, depth = 0, budget = { items: 0 }): boolean {
  if (depth > 5 || typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) {
    budget.items += value.length;
    if (budget.items > LARGE_ITEMS) return true;
  }
  for (const member of Array.isArray(value) ? value.slice(0, 16) : Object.values(value)) {
    if (isLarge(member, depth + 1, budget)) return true;
  }
  return false;
}

export async function stringifySliced(value: unknown): Promise<string> {
  const parts: string[] = [];
  await write(value, parts);
  return parts.join('');
}

async function write(value: unknown, out: string[]): Promise<void> {
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
