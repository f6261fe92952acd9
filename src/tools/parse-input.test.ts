import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isToolError } from '../errors.js';
import { dropNullOptionals, parseToolInput } from './parse-input.js';

const edits = z.strictObject({
  file_path: z.string(),
  limit: z.number().int().optional(),
  mode: z.enum(['a', 'b']).default('a'),
  note: z.string().nullable().optional(),
  edits: z.array(z.strictObject({ old_string: z.string(), replace_all: z.boolean().optional() })),
  op: z.union([z.strictObject({ kind: z.literal('x'), n: z.number().optional() }), z.strictObject({ kind: z.literal('y') })]).optional(),
});

function invalid(raw: unknown): unknown {
  try {
    parseToolInput(edits, raw);
  } catch (err) {
    if (isToolError(err)) return { code: err.code, message: err.message, details: err.details };
    throw err;
  }
  throw new Error('expected INVALID_INPUT');
}

describe('tool input: null for an optional field means left out', () => {
  it('drops null for optional and defaulted fields, at any depth, in arrays and unions', () => {
    const parsed = parseToolInput(edits, {
      file_path: 'a',
      limit: null,
      mode: null,
      edits: [
        { old_string: 'x', replace_all: null },
        { old_string: 'y', replace_all: true },
      ],
      op: { kind: 'x', n: null },
    });
    expect(parsed).toEqual({
      file_path: 'a',
      mode: 'a',
      edits: [{ old_string: 'x' }, { old_string: 'y', replace_all: true }],
      op: { kind: 'x' },
    });
    expect(parseToolInput(edits, { file_path: 'a', edits: [], op: null })).toEqual({ file_path: 'a', mode: 'a', edits: [] });
  });

  it('keeps null where the schema accepts null', () => {
    expect(parseToolInput(edits, { file_path: 'a', note: null, edits: [] })).toEqual({ file_path: 'a', mode: 'a', note: null, edits: [] });
  });

  it('refuses null for a required field, naming it', () => {
    expect(invalid({ file_path: null, edits: [] })).toMatchObject({
      code: 'INVALID_INPUT',
      details: { fields: [{ field: 'body.file_path', message: expect.any(String) }] },
    });
    expect(invalid({ file_path: 'a', edits: [{ old_string: null }] })).toMatchObject({
      details: { fields: [{ field: 'body.edits.0.old_string' }] },
    });
  });

  it('names each unknown key, nested too, and lists the fields in the message', () => {
    const err = invalid({ file_path: 'a', extra: 1, edits: [{ old_string: 'x', other: 2 }] }) as {
      message: string;
      details: { fields: Array<{ field: string }> };
    };
    expect(err.details.fields.map((f) => f.field).sort()).toEqual(['body.edits.0.other', 'body.extra']);
    expect(err.message).toMatch(/^Invalid request: .*body\.extra: .*\.$/);
  });

  it('leaves values it does not understand alone (the schema decides)', () => {
    expect(dropNullOptionals(edits, null)).toBe(null);
    expect(dropNullOptionals(edits, [null])).toEqual([null]);
    expect(dropNullOptionals(z.string(), { a: null })).toEqual({ a: null });
  });
});
