import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CORPUS, itCorpus } from '../../test/support/corpus.js';
import { cellSource, parseNotebook } from './model.js';
import { summarizeOutput } from './outputs.js';

const cellsOf = (nb: unknown) => {
  const parsed = parseNotebook(JSON.stringify(nb));
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.notebook.cells;
};
const v3 = (cells: unknown[]) => ({ metadata: {}, nbformat: 3, nbformat_minor: 0, worksheets: [{ cells, metadata: {} }] });

describe('parseNotebook: lists of lines in nbformat 2/3, joined as Jupyter joins them', () => {
  it('joins lines written without line breaks with "\\n", and lines with them as they are', () => {
    const cells = cellsOf(
      v3([
        { cell_type: 'markdown', metadata: {}, source: ['# title', '', 'text'] },
        { cell_type: 'code', metadata: {}, input: ['a = 1\n', 'b = 2'], outputs: [{ output_type: 'stream', text: ['x', 'y'] }] },
      ]),
    );
    expect(cells.map(cellSource)).toEqual(['# title\n\ntext', 'a = 1\nb = 2']);
    const output = (cells[1] as { outputs: unknown[] }).outputs[0];
    expect(summarizeOutput(output)).toMatchObject({ output_type: 'stream', text: 'x\ny' });
  });

  it('leaves nbformat 4 lists as nbformat 4 defines them (concatenated)', () => {
    const cells = cellsOf({
      cells: [{ cell_type: 'markdown', metadata: {}, source: ['a', 'b'] }],
      metadata: {},
      nbformat: 4,
      nbformat_minor: 5,
    });
    expect(cellSource(cells[0])).toBe('ab');
  });

  itCorpus("shows nbformat 2's test notebook with its line breaks", () => {
    const text = readFileSync(path.join(CORPUS, 'nbformat/tests/test2.ipynb'), 'utf8');
    const raw = JSON.parse(text) as { worksheets: Array<{ cells: Array<{ source?: string[] }> }> };
    const parsed = parseNotebook(text);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(cellSource(parsed.notebook.cells[0])).toBe(raw.worksheets[0]!.cells[0]!.source!.join('\n'));
    expect(cellSource(parsed.notebook.cells[0])).toContain('# An introduction to the Jupyter notebook\n\nThe IPython');
  });
});
