import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { drainBody } from './drain.js';

const asRequest = (s: PassThrough): IncomingMessage => s as unknown as IncomingMessage;

describe('drainBody', () => {
  it('reads the rest of the body to its end, discarding it', async () => {
    const body = new PassThrough();
    let ended = false;
    const done = drainBody(asRequest(body), 10_000).then(() => (ended = true));
    for (let i = 0; i < 100; i++) body.write(Buffer.alloc(64 * 1024));
    expect(ended).toBe(false);
    body.end();
    await done;
    expect(body.readableEnded).toBe(true);
  });

  it('gives up after its time bound when the client keeps sending', async () => {
    const body = new PassThrough();
    const timer = setInterval(() => body.write(Buffer.alloc(1024)), 5);
    const started = performance.now();
    await drainBody(asRequest(body), 100);
    clearInterval(timer);
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(90);
    expect(elapsed).toBeLessThan(2_000);
  });
});
