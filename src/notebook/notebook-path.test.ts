import { describe, expect, it } from 'vitest';
import { isNotebookPath } from './notebook-path.js';

describe('a notebook is named .ipynb in any case (one helper for every tool)', () => {
  it('recognises .ipynb, .IPYNB and .IpYnB, and nothing else', () => {
    expect(['a.ipynb', 'B.IPYNB', 'c/d.IpYnB'].map(isNotebookPath)).toEqual([true, true, true]);
    expect(['a.ipynb.txt', 'ipynb', 'a.py', 'a.ipynb/'].map(isNotebookPath)).toEqual([false, false, false, false]);
  });
});
