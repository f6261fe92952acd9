/**
 * The soak's merge mode (`npm run soak -- --merge`): many sessions read one shared file once
 * and then keep editing their own lines of it without reading again, all at once. Each
 * session owns slots (`slot <i> = v<k>`, two filler lines apart, so no two sessions' edits
 * touch): nearly every edit lands on a version the session has not read and is merged with
 * the others' changes. At the end every slot must hold the last version its owner's acknowledged
 * edit wrote — none lost — and no edit may have been refused for a conflict.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { HttpClient } from '../bench/support/http-client.js';

export interface MergeSoakOptions {
  sessions: number;
  /** Slots per session. */
  slots: number;
  deadline: number;
}

export interface MergeSoakReport {
  requests: number;
  acked: number;
  merged: number;
  /**
   * 409s: after a merge whose diff was too long to show (over 200 lines) the session has not
   * seen the merged file, so its next edit of it needs a read (one follows); conflicts must be 0.
   */
  stale: number;
  conflicts: number;
  failures: string[];
  lost: string[];
}

const FILE = 'merge-soak.txt';

interface Answer {
  result?: { merged?: unknown };
  error?: { code?: string; details?: { conflict?: unknown } };
}
const slotLine = (slot: number, version: number) => `slot ${slot} = v${version}`;

export async function makeMergeFile(root: string, sessions: number, slots: number): Promise<void> {
  const lines: string[] = [];
  for (let i = 0; i < sessions * slots; i += 1) lines.push(slotLine(i, 0), `filler a ${i}`, `filler b ${i}`);
  await fsp.mkdir(root, { recursive: true });
  await fsp.writeFile(path.join(root, FILE), `${lines.join('\n')}\n`);
}

export async function runMergeSoak(client: HttpClient, root: string, options: MergeSoakOptions): Promise<MergeSoakReport> {
  const report: MergeSoakReport = { requests: 0, acked: 0, merged: 0, stale: 0, conflicts: 0, failures: [], lost: [] };
  const versions = new Map<number, number>();
  const post = async (tool: string, session: string, body: object) => {
    report.requests += 1;
    const res = await client.request('POST', `/v1/tools/${tool}`, body, { 'x-session-id': session });
    return { status: res.status, body: JSON.parse(res.body) as Answer };
  };
  const session = async (s: number) => {
    const id = `merge-${s}`;
    await post('read', id, { file_path: FILE });
    let turn = 0;
    while (Date.now() < options.deadline) {
      const slot = s * options.slots + (turn++ % options.slots);
      const was = versions.get(slot) ?? 0;
      const body = { file_path: FILE, old_string: slotLine(slot, was), new_string: slotLine(slot, was + 1) };
      const res = await post('edit', id, body).catch((err: Error) => ({ status: 0, body: { error: { code: err.message } } as Answer }));
      if (res.status === 200) {
        versions.set(slot, was + 1);
        report.acked += 1;
        if (res.body.result?.merged) report.merged += 1;
        continue;
      }
      if (res.status === 409) {
        report.stale += 1;
        if (res.body.error?.details?.conflict) report.conflicts += 1;
        await post('read', id, { file_path: FILE });
        continue;
      }
      report.failures.push(`${id} slot ${slot}: ${res.status} ${res.body.error?.code ?? ''}`);
      return;
    }
  };
  await Promise.all(Array.from({ length: options.sessions }, (_, s) => session(s)));
  const text = await fsp.readFile(path.join(root, FILE), 'utf8');
  const lines = text.split('\n');
  for (let slot = 0; slot < options.sessions * options.slots; slot += 1) {
    const want = slotLine(slot, versions.get(slot) ?? 0);
    if (lines[3 * slot] !== want) report.lost.push(`line ${3 * slot + 1}: expected "${want}", found "${lines[3 * slot]}"`);
  }
  if (lines.length !== options.sessions * options.slots * 3 + 1) report.lost.push(`the file has ${lines.length - 1} lines`);
  return report;
}

/** Prints the figures; true when any check failed. */
export function printMergeSummary(report: MergeSoakReport, elapsed: number): boolean {
  console.log(`requests: ${report.requests} in ${elapsed.toFixed(0)} s = ${(report.requests / elapsed).toFixed(1)} requests/s`);
  console.log(`acknowledged edits: ${report.acked}, of them merged with other sessions' changes: ${report.merged}`);
  console.log(
    `409 answers: ${report.stale} (a read follows: after a merge whose diff was too long to show, the session must read again; conflicts: ${report.conflicts}, must be 0)`,
  );
  console.log(`lost updates: ${report.lost.length}; other failures: ${report.failures.length}`);
  for (const line of [...report.lost, ...report.failures].slice(0, 20)) console.log(`  ! ${line}`);
  const failed = report.lost.length + report.failures.length + report.conflicts > 0 || report.acked === 0;
  console.log(failed ? 'SOAK FAILED' : 'SOAK PASSED');
  return failed;
}
