/**
 * The soak's traffic: mixed Read / Edit / NotebookEdit from many sessions on many files.
 * A write refused because its session's view is not current (409) is followed by a Read in that
 * session and a retry, as an agent does; what the server acknowledged (200) is recorded for
 * the checker, and so is what it finally refused.
 */
import type { HttpClient } from '../bench/support/http-client.js';
import type { SoakFile } from './soak-files.js';

export interface LoadOptions {
  sessions: number;
  readShare: number;
  editShare: number;
  retries: number;
}

export interface LoadStats {
  requests: number;
  statuses: Map<number, number>;
  /** Error codes of non-200 answers, by tool. */
  codes: Map<string, number>;
  /** Operations chosen by the mix (a retry's Read is a request, not an operation). */
  ops: Record<'Read' | 'Edit' | 'NotebookEdit', number>;
  latencies: Record<'Read' | 'Edit' | 'NotebookEdit', number[]>;
  networkErrors: number;
  retried: number;
}

export function emptyStats(): LoadStats {
  return {
    requests: 0,
    statuses: new Map(),
    codes: new Map(),
    ops: { Read: 0, Edit: 0, NotebookEdit: 0 },
    latencies: { Read: [], Edit: [], NotebookEdit: [] },
    networkErrors: 0,
    retried: 0,
  };
}

type Tool = 'Read' | 'Edit' | 'NotebookEdit';
const SLUG: Record<Tool, string> = { Read: 'read', Edit: 'edit', NotebookEdit: 'notebook_edit' };

export class SoakLoad {
  private seq = 0;
  private readonly texts: SoakFile[];
  private readonly notebooks: SoakFile[];

  constructor(
    private readonly client: HttpClient,
    private readonly files: SoakFile[],
    private readonly options: LoadOptions,
    private readonly random: () => number,
    readonly stats: LoadStats = emptyStats(),
  ) {
    this.texts = files.filter((f) => f.kind === 'text');
    this.notebooks = files.filter((f) => f.kind === 'notebook');
  }

  /** One client loop until `deadline` (ms since epoch). */
  async loop(deadline: number): Promise<void> {
    while (Date.now() < deadline) {
      const session = `soak-${Math.floor(this.random() * this.options.sessions)}`;
      const dice = this.random();
      const tool: Tool =
        dice < this.options.readShare ? 'Read' : dice < this.options.readShare + this.options.editShare ? 'Edit' : 'NotebookEdit';
      this.stats.ops[tool] += 1;
      if (tool === 'Read') await this.read(session, this.pick(this.files));
      else if (tool === 'Edit') await this.edit(session, this.pick(this.texts));
      else await this.notebookEdit(session, this.pick(this.notebooks));
    }
  }

  private pick<T>(list: T[]): T {
    return list[Math.floor(this.random() * list.length)]!;
  }

  private async read(session: string, file: SoakFile): Promise<void> {
    // A third of the reads page (a range the session may not have read yet), the rest are whole.
    const body =
      this.random() < 0.33
        ? { file_path: file.rel, offset: 1 + Math.floor(this.random() * 20), limit: 1 + Math.floor(this.random() * 40) }
        : { file_path: file.rel };
    await this.call('Read', session, body);
  }

  private async edit(session: string, file: SoakFile): Promise<void> {
    const mark = this.marker(session);
    const body = { file_path: file.rel, old_string: file.anchor, new_string: `${file.anchor}\n${mark}` };
    await this.write('Edit', session, file, mark, body);
  }

  private async notebookEdit(session: string, file: SoakFile): Promise<void> {
    const mark = this.marker(session);
    // Half at the top (no cell_id), half after one of the notebook's own cells.
    const after = this.random() < 0.5 ? {} : { cell_id: `cell-${Math.floor(this.random() * file.cells)}` };
    const body = { notebook_path: file.rel, new_source: mark, cell_type: 'markdown', edit_mode: 'insert', ...after };
    await this.write('NotebookEdit', session, file, mark, body);
  }

  private marker(session: string): string {
    return `m-${(this.seq += 1)}-s${session.slice('soak-'.length)}`;
  }

  private async write(tool: Tool, session: string, file: SoakFile, mark: string, body: object): Promise<void> {
    for (let attempt = 0; attempt <= this.options.retries; attempt++) {
      const answer = await this.call(tool, session, body);
      if (answer.status === 200) {
        file.acked.add(mark);
        return;
      }
      // A broken connection leaves the outcome unknown: counted as a failure, not checked.
      if (answer.status === 0) return;
      if (answer.status !== 409) break;
      this.stats.retried += 1;
      await this.call('Read', session, { file_path: file.rel });
    }
    // Refused: the checker requires the marker to be absent.
    file.refused.add(mark);
  }

  private async call(tool: Tool, session: string, body: object): Promise<{ status: number; code: string }> {
    const path = `/v1/tools/${SLUG[tool]}`;
    const started = performance.now();
    this.stats.requests += 1;
    try {
      const res = await this.client.request('POST', path, body, { 'x-session-id': session });
      this.stats.latencies[tool].push(performance.now() - started);
      this.stats.statuses.set(res.status, (this.stats.statuses.get(res.status) ?? 0) + 1);
      const code = res.status === 200 ? '' : codeOf(res.body);
      if (code) this.stats.codes.set(`${tool} ${res.status} ${code}`, (this.stats.codes.get(`${tool} ${res.status} ${code}`) ?? 0) + 1);
      return { status: res.status, code };
    } catch {
      this.stats.networkErrors += 1;
      return { status: 0, code: 'NETWORK' };
    }
  }
}

function codeOf(body: string): string {
  try {
    return (JSON.parse(body) as { error?: { code?: string } }).error?.code ?? 'NO_CODE';
  } catch {
    return 'NOT_JSON';
  }
}
