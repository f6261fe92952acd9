import { describe, expect, it } from 'vitest';
import { setCellOutputs } from './set-outputs.js';

const stream = (text: string) => ({ name: 'stdout', output_type: 'stream', text });
const result = (text: string, count: number) => ({
  data: { 'text/plain': text },
  execution_count: count,
  metadata: {},
  output_type: 'execute_result',
});

/** The bytes outside [start, end) of `before` and of `after` (the same length outside) are equal. */
function changedOnly(before: string, after: string, start: number, endFromBack: number): void {
  expect(after.slice(0, start)).toBe(before.slice(0, start));
  expect(after.slice(after.length - endFromBack)).toBe(before.slice(before.length - endFromBack));
}

describe('setCellOutputs', () => {
  it('writes a Jupyter-saved notebook as Jupyter would: lists of lines, one-space indent', () => {
    const cell = { cell_type: 'code', execution_count: null, id: 'a', metadata: {}, outputs: [], source: ['print(1)'] };
    const before = JSON.stringify({ cells: [cell], metadata: {}, nbformat: 4, nbformat_minor: 5 }, null, 1) + '\n';
    const after = setCellOutputs(before, [{ index: 0, executionCount: 3, outputs: [stream('1\n2\n')] }]);
    const expected = { ...cell, execution_count: 3, outputs: [{ name: 'stdout', output_type: 'stream', text: ['1\n', '2\n'] }] };
    expect(after).toBe(JSON.stringify({ cells: [expected], metadata: {}, nbformat: 4, nbformat_minor: 5 }, null, 1) + '\n');
  });

  it('keeps a minified notebook minified and every byte around the two values', () => {
    const before =
      '{"nbformat":4,"nbformat_minor":4,"metadata":{},"cells":[{"cell_type":"code","source":"x","metadata":{},"outputs":[],"execution_count":null},{"cell_type":"code","source":"y","metadata":{},"outputs":[],"execution_count":null}]}';
    const after = setCellOutputs(before, [{ index: 1, executionCount: 2, outputs: [result('2', 2)] }]);
    expect(after).toBe(
      before.replace(
        '"source":"y","metadata":{},"outputs":[],"execution_count":null',
        '"source":"y","metadata":{},"outputs":[{"data":{"text/plain":"2"},"execution_count":2,"metadata":{},"output_type":"execute_result"}],"execution_count":2',
      ),
    );
  });

  it('keeps CRLF, tab indentation, a BOM and the escapes of an ensure_ascii file', () => {
    const text =
      '\ufeff{\r\n\t"cells": [\r\n\t\t{\r\n\t\t\t"cell_type": "code",\r\n\t\t\t"execution_count": null,\r\n\t\t\t"metadata": {},\r\n\t\t\t"outputs": [],\r\n\t\t\t"source": "print(\'\\u00e9\')"\r\n\t\t}\r\n\t],\r\n\t"metadata": {},\r\n\t"nbformat": 4,\r\n\t"nbformat_minor": 2\r\n}\r\n';
    const after = setCellOutputs(text, [{ index: 0, executionCount: 1, outputs: [stream('é\n')] }]);
    expect(after).toBe(
      text
        .replace('"execution_count": null', '"execution_count": 1')
        .replace(
          '"outputs": []',
          '"outputs": [\r\n\t\t\t\t{\r\n\t\t\t\t\t"name": "stdout",\r\n\t\t\t\t\t"output_type": "stream",\r\n\t\t\t\t\t"text": "\\u00e9\\n"\r\n\t\t\t\t}\r\n\t\t\t]',
        ),
    );
    changedOnly(text, after, text.indexOf('"execution_count"'), text.length - text.indexOf(',\r\n\t\t\t"source"'));
  });

  it('adds members a schema-invalid cell lacks, after its last member, in its separator style', () => {
    const before = '{"cells": [{"cell_type": "code", "metadata": {}, "source": "1"}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}';
    const after = setCellOutputs(before, [{ index: 0, executionCount: 1, outputs: [] }]);
    expect(after).toBe(
      '{"cells": [{"cell_type": "code", "metadata": {}, "source": "1", "execution_count": 1, "outputs": []}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}',
    );
    expect(JSON.parse(after).cells[0]).toEqual({ cell_type: 'code', metadata: {}, source: '1', execution_count: 1, outputs: [] });
  });

  it('writes several cells at once and leaves the cells between them alone', () => {
    const cells = ['a', 'b', 'c'].map((id) => ({ cell_type: 'code', execution_count: null, id, metadata: {}, outputs: [], source: [id] }));
    const before = JSON.stringify({ cells, metadata: {}, nbformat: 4, nbformat_minor: 5 }, null, 2);
    const after = setCellOutputs(before, [
      { index: 0, executionCount: 1, outputs: [] },
      { index: 2, executionCount: 2, outputs: [stream('')] },
    ]);
    const parsed = JSON.parse(after) as { cells: Array<{ execution_count: number | null; outputs: unknown[] }> };
    expect(parsed.cells.map((c) => c.execution_count)).toEqual([1, null, 2]);
    expect(parsed.cells[2]?.outputs).toEqual([{ name: 'stdout', output_type: 'stream', text: [] }]);
    expect(after.split('\n').length - before.split('\n').length).toBe(6);
  });

  it('writes a one-line cell of an indented file on one line, with its own separators', () => {
    const before =
      '{\n  "cells": [\n    {"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [], "source": ["1"]}\n  ],\n  "metadata": {},\n  "nbformat": 4,\n  "nbformat_minor": 4\n}\n';
    const after = setCellOutputs(before, [{ index: 0, executionCount: 1, outputs: [result('1', 1)] }]);
    expect(after).toBe(
      before
        .replace('"execution_count": null', '"execution_count": 1')
        .replace(
          '"outputs": []',
          '"outputs": [{"data": {"text/plain": ["1"]}, "execution_count": 1, "metadata": {}, "output_type": "execute_result"}]',
        ),
    );
  });
});
