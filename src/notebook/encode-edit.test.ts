import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CORPUS, corpusNames, itCorpus } from '../../test/support/corpus.js';
import { decodeText, encodeText } from '../text/codec.js';
import { editNotebook, type NotebookEditRequest } from './edit.js';
import { encodeNotebookEdit } from './encode-edit.js';

const samples = corpusNames('notebooks').map((name) => readFileSync(path.join(CORPUS, 'notebooks', name)));
const bom = Buffer.from([0xef, 0xbb, 0xbf]);
const variants = samples.flatMap((bytes) => [
  bytes,
  Buffer.concat([bom, bytes]),
  Buffer.from(bytes.toString('utf8').replace(/\n/g, '\r\n'), 'utf8'),
]);
const requests: NotebookEditRequest[] = [
  { cellId: 'cell-1', newSource: 'naïve — 概要 😀\nx', editMode: 'replace', cellType: 'code' },
  { cellId: 'cell-2', newSource: 'é', editMode: 'insert', cellType: 'markdown' },
  { newSource: 'top', editMode: 'insert', cellType: 'code' },
  { cellId: 'cell-3', newSource: '', editMode: 'delete' },
];

describe('encodeNotebookEdit', () => {
  itCorpus('gives the same bytes as encoding the whole new text, for UTF-8 with and without BOM, LF and CRLF', () => {
    for (const bytes of variants) {
      const decoded = decodeText(bytes);
      for (const request of requests) {
        const edit = editNotebook(decoded.text, request, () => 'fixed');
        const fast = encodeNotebookEdit(bytes, decoded, edit.splice, edit.text);
        expect(fast.equals(encodeText(edit.text, decoded))).toBe(true);
      }
    }
  });

  it('splices only the new value into a minified notebook', () => {
    const bytes = Buffer.from(
      '{"cells":[{"cell_type":"markdown","metadata":{},"source":"é"}],"metadata":{},"nbformat":4,"nbformat_minor":4}',
    );
    const decoded = decodeText(bytes);
    const edit = editNotebook(decoded.text, { cellId: 'cell-0', newSource: '概', editMode: 'replace' });
    expect(encodeNotebookEdit(bytes, decoded, edit.splice, edit.text).toString('utf8')).toBe(
      '{"cells":[{"cell_type":"markdown","metadata":{},"source":"概"}],"metadata":{},"nbformat":4,"nbformat_minor":4}',
    );
  });

  itCorpus('writes a lone surrogate in the new source as a JSON escape, which UTF-8 can hold', () => {
    const bytes = samples[0] as Buffer;
    const decoded = decodeText(bytes);
    const edit = editNotebook(decoded.text, { cellId: 'cell-0', newSource: 'bad \ud800', editMode: 'replace' });
    const out = encodeNotebookEdit(bytes, decoded, edit.splice, edit.text).toString('utf8');
    expect(out).toContain('"bad \\ud800"');
    expect(JSON.parse(out).cells[0].source).toEqual(['bad \ud800']);
  });
});
