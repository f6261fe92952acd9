/** A Jupyter notebook by its name (SPEC §5, §6, §9): `.ipynb`, in any case (`NB.IPYNB` too). */
export function isNotebookPath(relative: string): boolean {
  return relative.toLowerCase().endsWith('.ipynb');
}
