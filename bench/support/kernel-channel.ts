/**
 * A kernel of a Jupyter Server driven straight through its channels WebSocket
 * (`/api/kernels/<id>/channels`, Jupyter messaging protocol 5.3 as JSON): the floor NotebookRun
 * is measured against. `execute` sends an execute_request on the shell channel and is done when
 * the shell reply and the iopub `idle` status for it have both come, as a client that shows the
 * outputs must wait for.
 */
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';

export interface Execution {
  status: 'ok' | 'error' | 'aborted';
  /** The iopub messages of the request: stream, execute_result, display_data, error. */
  outputs: Array<{ output_type: string; [key: string]: unknown }>;
}

interface Message {
  header: { msg_id: string; msg_type: string };
  parent_header: { msg_id?: string };
  content: Record<string, any>;
  channel: string;
}

const OUTPUT_TYPES = new Set(['stream', 'execute_result', 'display_data', 'error']);

export class KernelChannel {
  private readonly session = randomUUID();
  private readonly waiting = new Map<string, (msg: Message) => void>();

  private constructor(
    private readonly server: { url: string; token: string },
    readonly kernelId: string,
    private readonly ws: WebSocket,
  ) {
    ws.on('message', (data) => {
      const msg = JSON.parse(String(data)) as Message;
      const parent = msg.parent_header?.msg_id;
      if (parent !== undefined) this.waiting.get(parent)?.(msg);
    });
  }

  /** Starts a kernel of `kernelName` and connects to its channels; resolves once it answers. */
  static async start(server: { url: string; token: string }, kernelName = 'python3'): Promise<KernelChannel> {
    const res = await fetch(`${server.url}/api/kernels`, {
      method: 'POST',
      headers: { authorization: `token ${server.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: kernelName }),
    });
    if (res.status !== 201) throw new Error(`starting a ${kernelName} kernel: HTTP ${res.status}`);
    const { id } = (await res.json()) as { id: string };
    const ws = new WebSocket(`${server.url.replace(/^http/, 'ws')}/api/kernels/${id}/channels`, {
      headers: { authorization: `token ${server.token}` },
      perMessageDeflate: false,
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const kernel = new KernelChannel(server, id, ws);
    // A fresh kernel may drop requests sent before it is up: ask until it answers.
    for (let i = 0; ; i++) {
      const reply = await Promise.race([kernel.request('kernel_info_request', {}), sleep(2_000).then(() => null)]);
      if (reply !== null) break;
      if (i === 30) throw new Error('the kernel did not answer kernel_info_request within 60 s');
    }
    return kernel;
  }

  /** Runs `code`; resolves with the reply's status and the outputs once the kernel is idle again. */
  async execute(code: string): Promise<Execution> {
    const outputs: Execution['outputs'] = [];
    let status: Execution['status'] | undefined;
    let idle = false;
    const msgId = randomUUID();
    return new Promise<Execution>((resolve) => {
      const done = () => {
        if (status === undefined || !idle) return;
        this.waiting.delete(msgId);
        resolve({ status, outputs });
      };
      this.waiting.set(msgId, (msg) => {
        const type = msg.header.msg_type;
        if (msg.channel === 'shell' && type === 'execute_reply') status = msg.content.status as Execution['status'];
        else if (type === 'status' && msg.content.execution_state === 'idle') idle = true;
        else if (OUTPUT_TYPES.has(type)) outputs.push({ output_type: type, ...msg.content });
        done();
      });
      this.send(msgId, 'execute_request', {
        code,
        silent: false,
        store_history: true,
        user_expressions: {},
        allow_stdin: false,
        stop_on_error: true,
      });
    });
  }

  /** Shuts the kernel down through the REST API and closes the socket. */
  async close(): Promise<void> {
    this.ws.close();
    await fetch(`${this.server.url}/api/kernels/${this.kernelId}`, {
      method: 'DELETE',
      headers: { authorization: `token ${this.server.token}` },
    }).catch(() => undefined);
  }

  private request(type: string, content: Record<string, unknown>): Promise<Message> {
    const msgId = randomUUID();
    return new Promise<Message>((resolve) => {
      this.waiting.set(msgId, (msg) => {
        if (msg.channel !== 'shell') return;
        this.waiting.delete(msgId);
        resolve(msg);
      });
      this.send(msgId, type, content);
    });
  }

  private send(msgId: string, type: string, content: Record<string, unknown>): void {
    const header = {
      msg_id: msgId,
      msg_type: type,
      session: this.session,
      username: 'sidefile-bench',
      date: new Date().toISOString(),
      version: '5.3',
    };
    this.ws.send(JSON.stringify({ header, parent_header: {}, metadata: {}, content, buffers: [], channel: 'shell' }));
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
