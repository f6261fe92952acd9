/** A Jupyter notebook by its name: `.ipynb`, in any case (`NB.IPYNB` too). */
export function isNotebookPath(relative: string): boolean {
  return relative.toLowerCase().endsWith('.ipynb');
}
