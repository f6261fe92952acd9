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
 * is written after at most FLUSH_MS (so a quiet server's lines still show at once); with
 * nothing left to write no timer runs.
 *
 * What is kept: a graceful stop waits for `close()` (buildApp's onClose); process.exit, an
 * uncaught exception and an unhandled rejection end in Node's `exit` event, where pino writes
 * what is left synchronously. What a crash may lose: on SIGKILL, an out-of-memory abort or a
 * native crash, the lines not yet written — at most the last FLUSH_MS of lines (and a write
 * in flight).
 */
export function asyncStdout(): LogStream {
  const sonic = pino.destination({ dest: 1, sync: false, minLength: BATCH_BYTES });
  // Bytes handed over and not yet written: SonicBoom reports each write it makes, not what it
  // holds, and a flush while a write is in flight is absorbed, so the timer flushes again
  // until everything is out. An idle service has nothing outstanding and no timer at all (an
  // empty flush is a write(2) and a thread-pool hop: 20 a second per idle sidecar otherwise).
  let outstanding = 0;
  let timer: NodeJS.Timeout | null = null;
  sonic.on('write', (n: number) => (outstanding -= n));
  const tick = (): void => {
    timer = null;
    if (outstanding <= 0) return;
    sonic.flush();
    arm();
  };
  const arm = (): void => {
    timer ??= setTimeout(tick, FLUSH_MS).unref();
  };
  const stream: pino.DestinationStream = {
    write: (line: string) => {
      outstanding += Buffer.byteLength(line);
      sonic.write(line);
      arm();
    },
  };
  return {
    stream,
    close: () => {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      // With a minLength, SonicBoom's flush calls back once its writes have drained.
      return new Promise<void>((resolve) => sonic.flush(() => resolve()));
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
