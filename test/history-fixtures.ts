import { z } from 'zod';
import type { ResolvedPath, ToolDefinition } from '../src/tools/types.js';
import { runWrite } from '../src/write/pipeline.js';

const input = z.strictObject({ file_path: z.string(), content: z.string() });
const result = z.object({ type: z.string(), version: z.string().nullable() });

/**
 * Test-only write tools on the real write pipeline, so history, events and metrics tests do
 * not depend on the Write and Edit tools' own rules. `fixture_write` needs no read (it stands
 * in for a create or an overwrite); `fixture_append` needs a read, like Edit.
 */
export function fixtureWriteTools(): ToolDefinition[] {
  const write: ToolDefinition<z.infer<typeof input>> = {
    name: 'Write',
    slug: 'fixture_write',
    title: 'Fixture write',
    description: 'Test-only: replaces the file with content.',
    input,
    result,
    access: 'write',
    target: { field: 'file_path', kind: 'file' },
    run: async (args, ctx, target: ResolvedPath) => {
      const out = await runWrite(ctx, target, {
        tool: 'Write',
        requireRead: 'none',
        unit: 'lines',
        createParents: true,
        compute: (current) => ({
          bytes: Buffer.from(args.content),
          before: current.bytes?.toString('utf8') ?? '',
          after: args.content,
          extra: null,
        }),
      });
      return { result: { type: out.type, version: out.version }, text: 'written', metrics: { bytes: out.bytes } };
    },
  };
  const append: ToolDefinition<z.infer<typeof input>> = {
    ...write,
    name: 'Edit',
    slug: 'fixture_append',
    description: 'Test-only: appends content; needs a prior read, like Edit.',
    run: async (args, ctx, target: ResolvedPath) => {
      const out = await runWrite(ctx, target, {
        tool: 'Edit',
        requireRead: 'any',
        unit: 'lines',
        compute: (current) => {
          const before = current.bytes?.toString('utf8') ?? '';
          return { bytes: Buffer.from(before + args.content), before, after: before + args.content, extra: null };
        },
      });
      return { result: { type: out.type, version: out.version }, text: 'appended', metrics: { bytes: out.bytes } };
    },
  };
  return [write, append];
}
