import pino from 'pino';

/** The service's log destination and how to wait until everything logged is written. */
export interface LogStream {
  stream: pino.DestinationStream;
  /** Stops the timer; resolves once the writes in flight are done (Node's exit writes any rest). */
  close(): Promise<void>;
}

/** Bytes gathered before a write; less is written by the timer below. */
const BATCH_BYTES = 8 * 1024;
/** The longest a line waits for its write. */
const FLUSH_MS = 50;

/**
 * stdout through pino's asynchronous destination (SonicBoom, `sync: false`). Why: the default
 * destination makes one synchronous write(2) per log line, ~3.5% of a 4 KB Read's CPU. Here lines are gathered up to BATCH_BYTES, written in the thread pool, and what is left
 * is written after at most FLUSH_MS (so a quiet server's lines still show at once).
 *
 * What is kept: a graceful stop waits for `close()` (buildApp's onClose); process.exit, an
 * uncaught exception and an unhandled rejection end in Node's `exit` event, where pino writes
 * what is left synchronously. What a crash may lose: on SIGKILL, an out-of-memory abort or a
 * native crash, the lines not yet written — at most the last FLUSH_MS of lines (and a write
 * in flight).
 */
export function asyncStdout(): LogStream {
  const stream = pino.destination({ dest: 1, sync: false, minLength: BATCH_BYTES });
  // Every tick, whether lines wait or not: SonicBoom tells neither (a write in flight absorbs a
  // flush), and with none waiting a flush is one empty write(2), 20 a second at most.
  const timer = setInterval(() => stream.flush(), FLUSH_MS).unref();
  return {
    stream,
    close: () => {
      clearInterval(timer);
      // With a minLength, SonicBoom's flush calls back once its writes have drained.
      return new Promise<void>((resolve) => stream.flush(() => resolve()));
    },
  };
}

/**
 * Where the service logs: human-readable lines (pino-pretty, colours, local time) when stdout is
 * a terminal, JSON lines otherwise (a pipe, a file, a container's log driver). pino-pretty is
 * imported only for a terminal, so a service whose output is collected never loads it (start-up
 * time and memory). A person watching a terminal does not need the batching: lines are written
 * as they come.
 */
export async function stdoutLog(isTerminal = process.stdout.isTTY === true): Promise<LogStream> {
  if (!isTerminal) return asyncStdout();
  const { default: pretty } = await import('pino-pretty');
  const stream = pretty({ colorize: true, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
  return { stream, close: async () => undefined };
}
