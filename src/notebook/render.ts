import type { NotebookCell, NotebookOutput } from './schema.js';

/**
 * Renders a cell for the model: its id, type and source, then each output as text; an image is a
 * one-line placeholder, never base64. Output texts are already cut by summarizeOutput.
 */
export function renderCell(cell: NotebookCell): string {
  const count = cell.execution_count === null ? '' : ` execution_count="${cell.execution_count}"`;
  const lines = [`<cell id="${cell.cell_id}" index="${cell.index}" type="${cell.cell_type}"${count}>`];
  if (cell.source !== '') lines.push(trimFinalNewline(cell.source));
  for (const output of cell.outputs) lines.push(renderOutput(output));
  lines.push('</cell>');
  return lines.join('\n');
}

function renderOutput(output: NotebookOutput): string {
  const parts: string[] = [];
  if (output.media_type !== undefined) {
    parts.push(`[${output.media_type} output, ${output.size ?? 0} bytes, not shown]`);
  }
  if (output.text !== undefined && output.text !== '') parts.push(trimFinalNewline(output.text));
  if (parts.length === 0) return `<output type="${output.output_type}"/>`;
  return `<output type="${output.output_type}">\n${parts.join('\n')}\n</output>`;
}

function trimFinalNewline(text: string): string {
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}
