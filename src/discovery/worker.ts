import { isToolError } from '../errors.js';
import { runGlobTask } from '../tools/glob/task.js';
import { runGrepTask } from '../tools/grep/task.js';
import { runLsTask } from '../tools/ls/task.js';
import type { TaskEnvelope, WorkerMessage } from './protocol.js';

/**
 * Entry of a discovery worker thread (loaded by piscina, see pool.ts). Runs one task and streams
 * its findings on the task's port; an input error found here (a pattern) is sent as a message,
 * anything else is thrown to the pool, which answers INTERNAL and logs it. The port is closed by
 * the event loop's side once it has the `end` message (closing here could drop queued batches).
 */
export default function runTask(envelope: TaskEnvelope): void {
  const { port } = envelope;
  // The budget runs from here: the pool arms its termination timer on this message.
  port.postMessage({ type: 'start' } satisfies WorkerMessage<never>);
  try {
    if (envelope.kind === 'glob') runGlobTask(envelope, port);
    else if (envelope.kind === 'grep') runGrepTask(envelope, port);
    else runLsTask(envelope, port);
  } catch (err) {
    if (isToolError(err) && err.code === 'INVALID_INPUT') {
      const fields = err.details['fields'] as Array<{ field: string }> | undefined;
      const message: WorkerMessage<never> = {
        type: 'error',
        code: 'INVALID_INPUT',
        field: fields?.[0]?.field ?? 'body',
        message: err.message,
      };
      port.postMessage(message);
      return;
    }
    throw err;
  }
}
