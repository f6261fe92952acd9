import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Log } from '../tools/types.js';
import { EraLog } from './era-log.js';

/** A request's logger (a child with its reqId, as Fastify makes it) writing to an array; time left out. */
function requestLogger(): { log: pino.Logger; lines: string[] } {
  const lines: string[] = [];
  const root = pino({ level: 'debug', timestamp: false, base: { pid: 1, hostname: 'h' } }, { write: (line: string) => lines.push(line) });
  return { log: root.child({ reqId: 'r-1' }), lines };
}

const CALLS: Array<[string, (log: Log) => void]> = [
  ['an object and a message', (log) => log.info({ event: 'tool_call', tool: 'Read', code: null }, 'Read ok')],
  ['an object alone', (log) => log.warn({ clients: 3 })],
  ['an error under err', (log) => log.error({ err: new Error('boom') }, 'unexpected error')],
  ['an error under err, no message', (log) => log.error({ err: new Error('boom') })],
  ['an Error alone', (log) => log.error(new Error('alone'))],
  ['an Error and a message', (log) => log.warn(new Error('alone'), 'with a message')],
  ['a message alone', (log) => log.info('just a message')],
  ['a message with format arguments', (log) => log.debug('%s of %d', 'one', 2)],
  ['an object, a message and format arguments', (log) => log.info({ a: 1 }, '%s!', 'x')],
];

describe('EraLog writes the lines a pino child with mcpEra writes', () => {
  for (const [name, call] of CALLS) {
    it(name, () => {
      const viaChild = requestLogger();
      const viaEra = requestLogger();
      call(viaChild.log.child({ mcpEra: '2026-07-28' }));
      call(new EraLog(viaEra.log, '2026-07-28'));
      expect(viaEra.lines).toHaveLength(1);
      // Stack traces differ by the line that made the error: compare without them.
      const strip = (line: string) => line.replace(/"stack":"(?:[^"\\]|\\.)*"/, '"stack":""');
      expect(strip(viaEra.lines[0]!)).toBe(strip(viaChild.lines[0]!));
      expect(JSON.parse(viaEra.lines[0]!)).toMatchObject({ reqId: 'r-1', mcpEra: '2026-07-28' });
    });
  }

  it('keeps a level that is off silent', () => {
    const { log, lines } = requestLogger();
    log.level = 'info';
    new EraLog(log, '2025').debug({ a: 1 }, 'hidden');
    expect(lines).toEqual([]);
  });
});
