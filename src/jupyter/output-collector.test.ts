import { describe, expect, it } from 'vitest';
import { CELL_OUTPUT_LIMIT, OutputCollector } from './output-collector.js';

describe('OutputCollector', () => {
  it('joins a stream, keeps at most 1 MiB of it and notes how much it cut', () => {
    const c = new OutputCollector();
    const chunk = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 1024; i++) c.add('stream', { name: 'stdout', text: chunk });
    const outputs = c.finish();
    expect(outputs).toHaveLength(1);
    const text = outputs[0]?.['text'] as string;
    expect(text.length).toBeLessThan(CELL_OUTPUT_LIMIT + 200);
    expect(text).toContain(`[output truncated: ${1024 * chunk.length - (CELL_OUTPUT_LIMIT - 40)} more characters were not kept`);
  });

  it('keeps Jupyter output shapes, counts rich outputs past the bound, and honours clear_output', () => {
    const c = new OutputCollector();
    c.add('stream', { name: 'stderr', text: 'gone\n' });
    c.add('clear_output', { wait: true });
    c.add('execute_result', { data: { 'text/plain': '1', 'text/html': '<b>1</b>' }, metadata: {}, execution_count: 4 });
    c.add('display_data', { data: { 'image/png': 'x'.repeat(CELL_OUTPUT_LIMIT) }, metadata: {} });
    c.add('error', { ename: 'ValueError', evalue: 'bad', traceback: ['tb'] });
    c.add('comm_msg', { data: {} });
    expect(c.finish()).toEqual([
      { data: { 'text/html': '<b>1</b>', 'text/plain': '1' }, execution_count: 4, metadata: {}, output_type: 'execute_result' },
      { ename: 'ValueError', evalue: 'bad', output_type: 'error', traceback: ['tb'] },
      { name: 'stderr', output_type: 'stream', text: "[1 output was not kept: over the 1 MiB sidefile keeps of a cell's outputs]\n" },
    ]);
  });

  it('applies update_display_data to the output with that display id', () => {
    const c = new OutputCollector();
    c.add('display_data', { data: { 'text/plain': '0%' }, metadata: {}, transient: { display_id: 'p' } });
    c.add('update_display_data', { data: { 'text/plain': '100%' }, metadata: {}, transient: { display_id: 'p' } });
    expect(c.finish()).toEqual([{ data: { 'text/plain': '100%' }, metadata: {}, output_type: 'display_data' }]);
  });
});
