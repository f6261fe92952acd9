/**
 * The throughput targets, each printed with the ratio measured in this run beside it:
 * ratio = sidefile's calls/s ÷ the baseline's calls/s, both from the same run.
 */
import type { OpKey } from './peers-types.js';
import { cellKey, type Results } from './peers-table.js';

interface Target {
  op: OpKey;
  label: string;
  clients: number;
  /** The peer column sidefile is divided by. */
  base: 'bare' | 'mcp';
  min: number;
}

const WRITES: Array<[OpKey, string]> = [
  ['write', 'Write 100 KB'],
  ['rewrite', 'Write 100 KB rewriting the file'],
  ['edit', 'Edit 4 KB'],
  ['edit1m', 'Edit 1 MB'],
  ['nbEdit', 'NotebookEdit'],
];
const READS: Array<[OpKey, string]> = [
  ['read4k', 'Read 4 KB'],
  ['read100k', 'Read 100 KB'],
];

export function targets(clientCounts: number[]): Target[] {
  const list: Target[] = [];
  for (const [op, label] of WRITES) for (const clients of clientCounts) list.push({ op, label, clients, base: 'bare', min: 0.8 });
  for (const [op, label] of READS) {
    for (const clients of clientCounts) {
      list.push({ op, label, clients, base: 'bare', min: 0.9 });
      list.push({ op, label, clients, base: 'mcp', min: 1.0 });
    }
  }
  if (clientCounts.includes(16)) list.push({ op: 'edit', label: 'Edit 4 KB', clients: 16, base: 'mcp', min: 0.7 });
  return list;
}

const BASE_TITLE = { bare: 'bare durable route', mcp: 'MCP filesystem' } as const;

/** One Markdown table: target, ratio, ✔/✘ (or why there is no ratio). */
export function renderTargets(results: Results, clientCounts: number[]): string[] {
  const lines = ['| Target | Clients | sidefile ÷ baseline | Target | Met |', '|---|---:|---:|---:|:---:|'];
  let met = 0;
  let all = 0;
  for (const t of targets(clientCounts)) {
    const own = results.get(cellKey(t.op, t.clients, 'sidefile'));
    const base = results.get(cellKey(t.op, t.clients, t.base));
    const name = `${t.label} vs ${BASE_TITLE[t.base]}`;
    all += 1;
    if (typeof own !== 'object' || typeof base !== 'object' || own.calls === 0 || base.calls === 0) {
      lines.push(
        `| ${name} | ${t.clients} | no ratio (${typeof own === 'string' ? own : typeof base === 'string' ? base : 'no calls'}) | ≥ ${t.min.toFixed(1)}× | ✘ |`,
      );
      continue;
    }
    const ratio = own.rate / base.rate;
    if (ratio >= t.min) met += 1;
    lines.push(
      `| ${name} | ${t.clients} | ${ratio.toFixed(2)}× (${own.rate.toFixed(0)} ÷ ${base.rate.toFixed(0)}/s) | ≥ ${t.min.toFixed(1)}× | ${ratio >= t.min ? '✔' : '✘'} |`,
    );
  }
  lines.push('', `${met} of ${all} targets met in this run.`);
  return lines;
}
