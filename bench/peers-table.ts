/** Formats the peer benchmark as one Markdown table, with the legend an honest reader needs. */
import os from 'node:os';
import type { Sample } from './support/measure.js';
import { OPS, type OpKey } from './peers-types.js';

export const PEER_COLUMNS = [
  { name: 'sidefile', title: 'sidefile (HTTP)' },
  { name: 'mcp', title: 'MCP filesystem (stdio)' },
  { name: 'jupyter', title: 'Jupyter contents API (HTTP)' },
  { name: 'bare', title: 'bare durable Fastify route (HTTP)' },
  { name: 'floor', title: 'Node fs, in-process (floor)' },
] as const;

/** A measured cell, or the reason there is no measurement. */
export type Cell = Sample | string;
export type Results = Map<string, Cell>;

export const cellKey = (op: OpKey, clients: number, peer: string) => `${op}/${clients}/${peer}`;

function formatCell(cell: Cell | undefined, base: Cell | undefined, isBase: boolean): string {
  if (cell === undefined) return '—';
  if (typeof cell === 'string') return cell;
  if (cell.calls === 0) return `failed: ${cell.firstError ?? 'no call finished'}`;
  const rate = cell.rate >= 100 ? cell.rate.toFixed(0) : cell.rate.toFixed(1);
  let text = `${rate}/s · ${cell.p50.toFixed(2)} / ${cell.p99.toFixed(2)} ms`;
  if (!isBase && base !== undefined && typeof base !== 'string' && base.rate > 0) text += ` · **${(cell.rate / base.rate).toFixed(2)}×**`;
  if (cell.errors > 0) text += ` · ${cell.errors} errors (${cell.firstError})`;
  return text;
}

export function renderTable(results: Results, clientCounts: number[]): string[] {
  const lines = [
    `| Operation | Clients | ${PEER_COLUMNS.map((p) => p.title).join(' | ')} |`,
    `|---|---:|${PEER_COLUMNS.map(() => '---').join('|')}|`,
  ];
  for (const op of OPS) {
    for (const clients of clientCounts) {
      const base = results.get(cellKey(op.key, clients, 'sidefile'));
      const cells = PEER_COLUMNS.map((p) => formatCell(results.get(cellKey(op.key, clients, p.name)), base, p.name === 'sidefile'));
      lines.push(`| ${op.label} | ${clients} | ${cells.join(' | ')} |`);
    }
  }
  return lines;
}

export function legend(seconds: number, warmupSeconds: number, rounds: number): string[] {
  return [
    `Each cell: calls/s · p50 / p99 latency · **ratio of calls/s to sidefile** (>1 = faster than sidefile). ` +
      `Up to ${seconds} s per cell after ${warmupSeconds} s of untimed calls per peer (its JIT warm; a write cell first makes 50 untimed writes per file, so sidefile's history is full as on a long-running service), in ${rounds} rounds that alternate the peers, every other one in reverse order (calls/s over the rounds' steady windows: from every client's first answer to the end of the round, a call still out then not counted; p50 calls-weighted, p99 the worst round's), N clients each looping on its own file (reads: one shared file).`,
    "sidefile: the built server as a child process, default settings (info-level telemetry, 50 history versions, durable writes: temp + fsync + rename + fsync folder), loopback HTTP/1.1 keep-alive (the bench's raw-socket client, as for the bare route). " +
      'Read 100 KB is two paged calls (one Read renders past the 100,000-character cap); Edit and NotebookEdit run in a session that read the file once; each timed Read uses a fresh session (no `file_unchanged`).',
    'MCP filesystem: one server over stdio via the SDK Client (read_text_file, edit_file, write_file); the notebook cell is edited as JSON text with edit_file; writes are temp + rename without fsync.',
    'Jupyter: jupyter-server contents API with a token; a change is GET + PUT of the whole model; writes fsync the file.',
    "Bare route: Fastify in its own process, same HTTP client, same work (readFile + numbering + Read's JSON shape; read, replace, temp + fsync + rename + fsync folder; Write reads the old text and answers with it as Write's `original_file`), no checks, no lock, no history, no telemetry: the baseline of the throughput targets.",
    "Floor: node:fs in the bench process, same work, no protocol: reads are readFile (notebook: + JSON.parse); writes read the file first and are as durable as sidefile's; the notebook edit is parse → set cell → stringify.",
  ];
}

/** The machine, and how busy it was: a shared machine's neighbours move these numbers. */
export function machine(loadavg = os.loadavg()): string {
  const cpus = os.cpus();
  const gib = (os.totalmem() / 2 ** 30).toFixed(1);
  const load = loadavg.map((n) => n.toFixed(2)).join(' ');
  return (
    `Machine: ${cpus.length} CPUs (${cpus[0]?.model.trim() ?? 'unknown'}), ${gib} GiB RAM, Linux ${os.release()}, Node ${process.version}; ` +
    `files in ${os.tmpdir()}; load average before the run ${load}.`
  );
}
