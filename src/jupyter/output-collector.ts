import type { JsonObject } from '../notebook/model.js';
import { isObject } from '../notebook/model.js';

/** At most this much of one cell's outputs is kept (JSON characters), in the file and in memory. */
export const CELL_OUTPUT_LIMIT = 1024 * 1024;

/**
 * Collects one cell's outputs from the kernel's iopub messages into nbformat 4 outputs, as
 * Jupyter keeps them: consecutive stream text of one name joined, `clear_output` honoured,
 * `update_display_data` applied. Bounded while receiving: past CELL_OUTPUT_LIMIT a stream's
 * text is cut (and a note says how much was not kept) and further rich outputs are counted,
 * not kept — a cell that prints a gigabyte costs a megabyte here.
 */
export class OutputCollector {
  private outputs: JsonObject[] = [];
  private used = 0;
  /** Stream characters not kept, by stream name; rich outputs not kept. */
  private readonly cut = new Map<string, number>();
  private omitted = 0;
  private clearPending = false;
  /** display_id → index in `outputs`, for update_display_data. */
  private readonly displays = new Map<string, number>();

  /** One iopub message of this cell; unknown types are ignored. */
  add(type: string, content: JsonObject): void {
    if (type === 'clear_output') {
      if (content['wait'] === true) this.clearPending = true;
      else this.clear();
      return;
    }
    if (type === 'update_display_data') return this.update(content);
    const output = toOutput(type, content);
    if (output === null) return;
    if (this.clearPending) {
      this.clearPending = false;
      this.clear();
    }
    if (output['output_type'] === 'stream') return this.addStream(output['name'] as string, output['text'] as string);
    const size = JSON.stringify(output).length;
    if (this.used + size > CELL_OUTPUT_LIMIT) {
      this.omitted++;
      return;
    }
    this.used += size;
    const displayId = displayIdOf(content);
    if (displayId !== null) this.displays.set(displayId, this.outputs.length);
    this.outputs.push(output);
  }

  /** A message that never arrived whole (over the channel's message limit). */
  noteLost(): void {
    this.omitted++;
  }

  /** The outputs kept, with a note on each stream that was cut and on rich outputs not kept. */
  finish(): JsonObject[] {
    const outputs = this.outputs.map((o) => ({ ...o }));
    for (const [name, chars] of this.cut) {
      const stream = outputs.findLast((o) => o['output_type'] === 'stream' && o['name'] === name);
      const note = `\n[output truncated: ${chars} more characters were not kept; sidefile keeps at most 1 MiB of a cell's outputs]\n`;
      if (stream !== undefined) stream['text'] = `${stream['text'] as string}${note}`;
      else outputs.push({ name, output_type: 'stream', text: note.slice(1) });
    }
    if (this.omitted > 0) {
      const what = this.omitted === 1 ? '1 output was' : `${this.omitted} outputs were`;
      outputs.push({
        name: 'stderr',
        output_type: 'stream',
        text: `[${what} not kept: over the 1 MiB sidefile keeps of a cell's outputs]\n`,
      });
    }
    return outputs;
  }

  private clear(): void {
    this.outputs = [];
    this.used = 0;
    this.displays.clear();
  }

  private addStream(name: string, text: string): void {
    const room = Math.max(0, CELL_OUTPUT_LIMIT - this.used);
    const kept = text.length <= room ? text : text.slice(0, room);
    if (kept.length < text.length) this.cut.set(name, (this.cut.get(name) ?? 0) + text.length - kept.length);
    if (kept === '') return;
    this.used += kept.length;
    const last = this.outputs.at(-1);
    if (last !== undefined && last['output_type'] === 'stream' && last['name'] === name) {
      last['text'] = `${last['text'] as string}${kept}`;
    } else {
      this.used += 40;
      this.outputs.push({ name, output_type: 'stream', text: kept });
    }
  }

  private update(content: JsonObject): void {
    const id = displayIdOf(content);
    const at = id === null ? undefined : this.displays.get(id);
    const target = at === undefined ? undefined : this.outputs[at];
    if (target === undefined) return;
    const data = sortedData(content['data']);
    const size = JSON.stringify(data).length - JSON.stringify(target['data']).length;
    if (this.used + size > CELL_OUTPUT_LIMIT) return;
    this.used += size;
    target['data'] = data;
    target['metadata'] = isObject(content['metadata']) ? content['metadata'] : {};
  }
}

function displayIdOf(content: JsonObject): string | null {
  const transient = content['transient'];
  return isObject(transient) && typeof transient['display_id'] === 'string' ? transient['display_id'] : null;
}

/** A mime bundle with its keys sorted, as Jupyter writes it (sort_keys). */
function sortedData(value: unknown): JsonObject {
  const data = isObject(value) ? value : {};
  return Object.fromEntries(
    Object.keys(data)
      .sort()
      .map((key) => [key, data[key]]),
  );
}

/** nbformat 4 output for an iopub message, keys in Jupyter's (sorted) order; null for other messages. */
function toOutput(type: string, content: JsonObject): JsonObject | null {
  const metadata = isObject(content['metadata']) ? content['metadata'] : {};
  switch (type) {
    case 'stream':
      return { name: content['name'] === 'stderr' ? 'stderr' : 'stdout', output_type: 'stream', text: String(content['text'] ?? '') };
    case 'display_data':
      return { data: sortedData(content['data']), metadata, output_type: 'display_data' };
    case 'execute_result': {
      const count = content['execution_count'];
      return {
        data: sortedData(content['data']),
        execution_count: typeof count === 'number' ? count : null,
        metadata,
        output_type: 'execute_result',
      };
    }
    case 'error': {
      const traceback = Array.isArray(content['traceback']) ? content['traceback'].map(String) : [];
      return { ename: String(content['ename'] ?? 'Error'), evalue: String(content['evalue'] ?? ''), output_type: 'error', traceback };
    }
    default:
      return null;
  }
}
