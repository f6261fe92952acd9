import type { JsonObject } from '../notebook/model.js';
import type { OutputCollector } from './output-collector.js';

export type RunStatus = 'ok' | 'error' | 'timeout';

export interface ExecuteOutcome {
  status: RunStatus;
  executionCount: number | null;
  /** nbformat 4 outputs, bounded (output-collector.ts). */
  outputs: JsonObject[];
  /** True when the kernel did not answer the interrupt: it should not be used again. */
  stuck?: boolean;
  /** The cell ended in a KeyboardInterrupt this side did not ask for (the server shutting down, someone else). */
  interruptedElsewhere?: boolean;
}

/** The one execute_request a channel has in flight, and what came back for it so far. */
export interface Pending {
  msgId: string;
  collector: OutputCollector;
  reply: JsonObject | null;
  idle: boolean;
  timedOut: boolean;
  /** Asks the server whether the kernel is idle (after a lost message, the reply may be lost too). */
  idleProbe?: () => Promise<boolean>;
  watch?: NodeJS.Timeout;
  finish(outcome: ExecuteOutcome): void;
  fail(err: Error): void;
}

/**
 * After a lost message the execute_reply and the idle status may be lost too: the server's view
 * of the kernel decides. Idle on two probes in a row without a reply → the cell is over
 * (its status taken from its outputs, its count unknown).
 */
export function watchIdle(pending: Pending): void {
  const probe = pending.idleProbe;
  if (probe === undefined || pending.watch !== undefined) return;
  let idleSeen = 0;
  pending.watch = setInterval(() => {
    void probe().then((idle) => {
      idleSeen = idle ? idleSeen + 1 : 0;
      if (idleSeen < 2) return;
      // The reply came but its idle status was lost: the reply decides.
      if (pending.reply !== null) return settle(pending);
      const outputs = pending.collector.finish();
      const failed = outputs.some((o) => o['output_type'] === 'error');
      pending.finish({ status: pending.timedOut ? 'timeout' : failed ? 'error' : 'ok', executionCount: null, outputs });
    });
  }, 1000);
}

export function settle(pending: Pending): void {
  const reply = pending.reply as JsonObject;
  const count = reply['execution_count'];
  const status: RunStatus = pending.timedOut ? 'timeout' : reply['status'] === 'ok' ? 'ok' : 'error';
  const interruptedElsewhere = !pending.timedOut && reply['ename'] === 'KeyboardInterrupt';
  pending.finish({
    status,
    executionCount: typeof count === 'number' ? count : null,
    outputs: pending.collector.finish(),
    ...(interruptedElsewhere ? { interruptedElsewhere } : {}),
  });
}
