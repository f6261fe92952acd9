/**
 * MCP vs REST (issue 16): calls/s of Read 4 KB and Edit 4 KB over `/mcp` against the same calls
 * over REST, on the same built server, with 1 and 16 clients; targets MCP ≥ 0.7× REST for Read
 * and ≥ 0.8× for Edit.
 *
 * Both sides do the same work: every timed Read is a session's first Read of its file (each
 * client walks its own files, so no Read answers `file_unchanged`); each Edit loop reads its own
 * file once in its own session, then edits a marker line n → n+1. MCP is measured twice:
 * with the SDK's own Client (what agent hosts run: it also validates every result against the
 * tool's outputSchema, on the same two cores as the server) and with plain JSON-RPC POSTs over
 * the bench's keep-alive client (the server's own cost, client overhead as small as REST's).
 * The sides are measured in alternating rounds, so load from other processes falls on all of them.
 */
import { promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { marker, textOfSize } from './support/fixtures.js';
import { httpClient, jsonOf, type HttpClient } from './support/http-client.js';
import { measure, type Call, type Sample } from './support/measure.js';
import { startSidefile } from './support/sidefile-server.js';

type Print = (line: string) => void;

const SECONDS = Number(process.env.BENCH_MCP_SECONDS ?? 4);
const FILES_PER_CLIENT_1 = 6_000;
const FILES_PER_CLIENT_16 = 600;
const MEASURE = { seconds: SECONDS, maxCalls: 1_000_000, warmup: 20 };

interface Side {
  /** A client loop: `read(files)` reads each file once, in order, in one session. */
  readLoop(files: string[]): Promise<Call>;
  editLoop(file: string): Promise<Call>;
  close(): Promise<void>;
}

/** REST over the bench's keep-alive client: one session per loop. */
function restSide(http: HttpClient): Side {
  let sessions = 0;
  const post = async (tool: string, session: string, body: unknown): Promise<string> => {
    const res = await http.request('POST', `/v1/tools/${tool}`, body, { 'x-session-id': session });
    if (res.status !== 200) throw new Error(`${tool}: HTTP ${res.status} ${res.body.slice(0, 200)}`);
    return res.body;
  };
  return {
    readLoop: async (files) => {
      const session = `rest-${(sessions += 1)}`;
      let i = 0;
      return async () => {
        const body = await post('read', session, { file_path: files[i++ % files.length] });
        if (body.includes('"file_unchanged"')) throw new Error('read: file_unchanged (files exhausted)');
      };
    },
    editLoop: async (file) => {
      const session = `rest-${(sessions += 1)}`;
      await post('read', session, { file_path: file });
      let n = 0;
      return async () => {
        await post('edit', session, { file_path: file, old_string: marker(n), new_string: marker(n + 1) });
        n += 1;
      };
    },
    close: async () => {},
  };
}

/** MCP with the SDK's Client: one MCP session per loop. */
function sdkSide(port: number): Side {
  const clients: Client[] = [];
  const connect = async (): Promise<Client> => {
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
    await client.listTools(); // caches the output validators, as hosts do
    clients.push(client);
    return client;
  };
  const call = async (client: Client, name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.structuredContent).slice(0, 200)}`);
    return result;
  };
  return {
    readLoop: async (files) => {
      const client = await connect();
      let i = 0;
      return async () => {
        const result = await call(client, 'Read', { file_path: files[i++ % files.length] });
        if ((result.structuredContent as { type?: string }).type === 'file_unchanged') throw new Error('read: file_unchanged');
      };
    },
    editLoop: async (file) => {
      const client = await connect();
      await call(client, 'Read', { file_path: file });
      let n = 0;
      return async () => {
        await call(client, 'Edit', { file_path: file, old_string: marker(n), new_string: marker(n + 1) });
        n += 1;
      };
    },
    close: async () => {
      await Promise.all(clients.map((c) => c.close()));
    },
  };
}

/** MCP as plain JSON-RPC POSTs over the bench's keep-alive client (after a real initialize). */
function rawSide(http: HttpClient): Side {
  const ACCEPT = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
  const open = async (): Promise<(name: string, args: Record<string, unknown>) => Promise<string>> => {
    const init = await http.request('POST', '/mcp', {
      jsonrpc: '2.0', id: 0, method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    }, ACCEPT);
    const session = init.headers['mcp-session-id'];
    if (!jsonOf<{ result?: unknown }>(init).result || typeof session !== 'string') throw new Error(`initialize: HTTP ${init.status}`);
    const headers = { ...ACCEPT, 'mcp-session-id': session };
    await http.request('POST', '/mcp', { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    let id = 0;
    return async (name, args) => {
      const res = await http.request('POST', '/mcp', { jsonrpc: '2.0', id: (id += 1), method: 'tools/call', params: { name, arguments: args } }, headers);
      if (res.status !== 200 || res.body.includes('"isError":true')) throw new Error(`${name}: HTTP ${res.status} ${res.body.slice(0, 200)}`);
      return res.body;
    };
  };
  return {
    readLoop: async (files) => {
      const call = await open();
      let i = 0;
      return async () => {
        const body = await call('Read', { file_path: files[i++ % files.length] });
        if (body.includes('"file_unchanged"')) throw new Error('read: file_unchanged');
      };
    },
    editLoop: async (file) => {
      const call = await open();
      await call('Read', { file_path: file });
      let n = 0;
      return async () => {
        await call('Edit', { file_path: file, old_string: marker(n), new_string: marker(n + 1) });
        n += 1;
      };
    },
    close: async () => {},
  };
}

interface Row {
  op: string;
  clients: number;
  rest: Sample;
  sdk: Sample;
  raw: Sample;
}

const ROUNDS = 3;
const SIDES = ['rest', 'sdk', 'raw'] as const;

/**
 * Measures the three sides in alternating rounds (rest, sdk, raw, rest, …) so that a burst of
 * load from other processes on the machine falls on all of them, not on one side's window.
 * The loops (sessions, file cursors) persist across rounds.
 */
async function compare(loops: Record<(typeof SIDES)[number], Call[]>): Promise<Record<(typeof SIDES)[number], Sample>> {
  const samples = { rest: [] as Sample[], sdk: [] as Sample[], raw: [] as Sample[] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of SIDES) {
      samples[name].push(await measure(loops[name], { ...MEASURE, seconds: SECONDS / ROUNDS, warmup: round === 0 ? MEASURE.warmup : 0 }));
    }
  }
  const merge = (list: Sample[]): Sample => {
    const calls = list.reduce((n, s) => n + s.calls, 0);
    const seconds = list.reduce((n, s) => n + s.seconds, 0);
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
    const failed = list.find((s) => s.errors > 0);
    return {
      calls, seconds, rate: calls / seconds, p50: median(list.map((s) => s.p50)), p99: Math.max(...list.map((s) => s.p99)),
      errors: list.reduce((n, s) => n + s.errors, 0), firstError: failed?.firstError ?? null,
    };
  };
  return { rest: merge(samples.rest), sdk: merge(samples.sdk), raw: merge(samples.raw) };
}

const fmt = (s: Sample) => `${s.rate.toFixed(0).padStart(6)}/s p50 ${s.p50.toFixed(2)} ms${s.errors ? ` (${s.errors} errors: ${s.firstError})` : ''}`;

export async function benchMcp(print: Print): Promise<void> {
  const base = await fsp.mkdtemp(path.join(os.tmpdir(), 'sidefile-bench-mcp-'));
  const root = path.join(base, 'ws');
  await fsp.mkdir(root, { recursive: true });
  const text = textOfSize(4096, [marker(0)]);
  // Each loop walks its own files in its own session, so every timed Read is a first read;
  // each side's loops are new sessions, so the sides share the files (and the page cache).
  let next = 0;
  const filesFor = async (clients: number): Promise<string[][]> => {
    const per = clients === 1 ? FILES_PER_CLIENT_1 : FILES_PER_CLIENT_16;
    const dir = `r${(next += 1)}`;
    await fsp.mkdir(path.join(root, dir));
    const out: string[][] = [];
    for (let c = 0; c < clients; c++) {
      const files = Array.from({ length: per }, (_, i) => `${dir}/c${c}-${i}.txt`);
      await Promise.all(files.map((rel) => fsp.writeFile(path.join(root, rel), text)));
      out.push(files);
    }
    return out;
  };
  const editFile = async (c: number): Promise<string> => {
    const rel = `e${(next += 1)}-${c}.txt`;
    await fsp.writeFile(path.join(root, rel), text);
    return rel;
  };
  const server = await startSidefile({ root, dataDir: path.join(base, 'data'), logFile: path.join(base, 'server.log') });
  const http = httpClient(server.port);
  const sides = { rest: restSide(http), sdk: sdkSide(server.port), raw: rawSide(http) };
  const rows: Row[] = [];
  try {
    for (const clients of [1, 16]) {
      const read: Partial<Row> = { op: 'Read 4 KB', clients };
      const edit: Partial<Row> = { op: 'Edit 4 KB', clients };
      const files = await filesFor(clients);
      const loops = async (make: (side: Side, c: number) => Promise<Call>) => {
        const built = { rest: [] as Call[], sdk: [] as Call[], raw: [] as Call[] };
        for (const name of SIDES) built[name] = await Promise.all(Array.from({ length: clients }, (_, c) => make(sides[name], c)));
        return built;
      };
      Object.assign(read, await compare(await loops((side, c) => side.readLoop(files[c]!))));
      Object.assign(edit, await compare(await loops(async (side, c) => side.editLoop(await editFile(c)))));
      rows.push(read as Row, edit as Row);
      for (const row of [read as Row, edit as Row]) printRow(print, row);
    }
  } finally {
    for (const side of Object.values(sides)) await side.close();
    http.close();
    await server.stop();
    await fsp.rm(base, { recursive: true, force: true });
  }
  print(`machine: ${os.cpus().length} CPUs, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} (figures are noisy under load)`);
}

function printRow(print: Print, row: Row): void {
  const target = row.op.startsWith('Read') ? 0.7 : 0.8;
  // calls/s over the whole run, and the ratio of median latencies (less moved by load bursts).
  const ratio = (s: Sample) => `${(s.rate / row.rest.rate).toFixed(2)}× REST (p50: ${(row.rest.p50 / s.p50).toFixed(2)}×)`;
  print(`${row.op}, ${row.clients} client(s):`);
  print(`  REST            ${fmt(row.rest)}`);
  print(`  MCP (SDK Client) ${fmt(row.sdk)}  = ${ratio(row.sdk)}, target ≥ ${target}`);
  print(`  MCP (JSON-RPC)   ${fmt(row.raw)}  = ${ratio(row.raw)}, target ≥ ${target}`);
}
