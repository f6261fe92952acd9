import { isObject, joinMultiline, type JsonObject } from './model.js';
import type { NotebookOutput } from './schema.js';

/** Each output's text is cut here in both `text` and `result`, so results stay bounded. */
export const OUTPUT_TEXT_LIMIT = 2000;
export const TRUNCATED_MARK = '… [truncated]';

// CSI sequences (colours, cursor moves), OSC sequences (titles, links) and two-byte escapes.
// eslint-disable-next-line no-control-regex -- ANSI escapes are control characters by definition
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

export function cutOutputText(text: string): string {
  return text.length > OUTPUT_TEXT_LIMIT ? text.slice(0, OUTPUT_TEXT_LIMIT) + TRUNCATED_MARK : text;
}

/** Text-like media types, best first, used when an output has no text/plain. */
const TEXT_TYPES = ['text/plain', 'text/markdown', 'text/latex', 'text/html', 'application/json'];

/** nbformat 3 keeps mime bundles flat under short names. */
const V3_KEYS: Record<string, string> = {
  text: 'text/plain',
  html: 'text/html',
  latex: 'text/latex',
  markdown: 'text/markdown',
  json: 'application/json',
  javascript: 'application/javascript',
  png: 'image/png',
  jpeg: 'image/jpeg',
  svg: 'image/svg+xml',
  pdf: 'application/pdf',
};

/** Summarizes one output for Read: its text, or its media type and size; never base64. */
export function summarizeOutput(output: unknown): NotebookOutput {
  if (!isObject(output)) return { output_type: 'unknown' };
  const type = typeof output['output_type'] === 'string' ? output['output_type'] : 'unknown';
  if (type === 'stream') return withText(type, joinMultiline(output['text']));
  if (type === 'error' || type === 'pyerr') return withText(type, errorText(output));
  const bundle = mimeBundle(output);
  const summary: NotebookOutput = { output_type: type };
  const text = bundleText(bundle);
  if (text !== undefined) summary.text = cutOutputText(stripAnsi(text));
  const binary = Object.keys(bundle).find((mime) => isBinaryMime(mime));
  if (binary !== undefined) {
    summary.media_type = binary;
    summary.size = dataSize(binary, bundle[binary]);
  }
  return summary;
}

function withText(type: string, text: string): NotebookOutput {
  return { output_type: type, text: cutOutputText(stripAnsi(text)) };
}

/**
 * An error output always shows `ename: evalue`, added in front when the traceback
 * does not contain it (a kernel may send a traceback of frames only, or none), then the
 * traceback. Compared without ANSI codes: IPython colours the ename in its last line.
 */
function errorText(output: JsonObject): string {
  const name = typeof output['ename'] === 'string' ? output['ename'] : 'Error';
  const value = typeof output['evalue'] === 'string' ? output['evalue'] : '';
  const head = value === '' ? name : `${name}: ${value}`;
  const traceback = output['traceback'];
  const lines = Array.isArray(traceback) ? traceback.filter((line): line is string => typeof line === 'string') : [];
  const text = lines.join('\n');
  if (text === '') return head;
  return stripAnsi(text).includes(head) ? text : `${head}\n${text}`;
}

function mimeBundle(output: JsonObject): JsonObject {
  const data = output['data'];
  if (isObject(data)) return data;
  const bundle: JsonObject = {};
  for (const [key, mime] of Object.entries(V3_KEYS)) {
    if (output[key] !== undefined) bundle[mime] = output[key];
  }
  return bundle;
}

function bundleText(bundle: JsonObject): string | undefined {
  for (const mime of TEXT_TYPES) {
    const value = bundle[mime];
    if (value === undefined) continue;
    if (mime === 'application/json' && typeof value !== 'string') return JSON.stringify(value);
    return joinMultiline(value);
  }
  return undefined;
}

function isBinaryMime(mime: string): boolean {
  return mime.startsWith('image/') || mime === 'application/pdf';
}

/** Decoded size of base64 data (SVG is stored as text: its UTF-8 size). */
function dataSize(mime: string, value: unknown): number {
  const raw = joinMultiline(value);
  if (mime === 'image/svg+xml') return Buffer.byteLength(raw, 'utf8');
  const compact = raw.replace(/[\s]/g, '');
  const padding = compact.endsWith('==') ? 2 : compact.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((compact.length * 3) / 4) - padding);
}
