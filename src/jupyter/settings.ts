/** Where NotebookRun's Jupyter Server is, from --jupyter-url, --jupyter-token-file and --max-kernels. */
export interface JupyterSettings {
  url: string;
  /** Security: read from a file, never logged. */
  token: string | null;
  maxKernels: number;
}
