import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { WriteEvent } from '../tools/types.js';
import { VersionIdGenerator } from '../history/version-id.js';
import { EventHub, fileChangedData, type EventSink } from './event-hub.js';

/** A sink that keeps what it was sent; `reading: false` makes it a client that never reads. */
class FakeSink extends EventEmitter implements EventSink {
  chunks: string[] = [];
  ended = false;
  destroyed = false;
  writableLength = 0;
  constructor(private readonly reading = true) {
    super();
  }
  write(chunk: string): boolean {
    this.chunks.push(chunk);
    if (!this.reading) this.writableLength += chunk.length;
    return this.reading;
  }
  end(): void {
    this.ended = true;
  }
  destroy(): void {
    this.destroyed = true;
    this.emit('close');
  }
  get text(): string {
    return this.chunks.join('');
  }
}

function writeEvent(overrides: Partial<WriteEvent> = {}): WriteEvent {
  return {
    tool: 'Edit',
    session: 'agent-1',
    path: { relative: 'src/a.ts', absolute: '/x/src/a.ts', real: '/x/src/a.ts', stat: null },
    type: 'update',
    additions: 2,
    deletions: 1,
    version: '20261130T040633123Z-000000',
    ...overrides,
  };
}

describe('EventHub', () => {
  it('sends one file_changed event per write with the contract’s fields, never the absolute path', () => {
    const hub = new EventHub();
    const sink = new FakeSink();
    hub.add(sink);
    hub.publish(writeEvent());
    hub.closeAll();
    const frames = sink.text.split('\n\n').filter((f) => f.includes('event: file_changed'));
    expect(frames).toHaveLength(1);
    const data = JSON.parse(
      frames[0]!
        .split('\n')
        .find((l) => l.startsWith('data: '))!
        .slice(6),
    );
    expect(data).toEqual({
      file_path: 'src/a.ts',
      tool: 'Edit',
      session: 'agent-1',
      type: 'update',
      additions: 2,
      deletions: 1,
      version: '20261130T040633123Z-000000',
      source: 'sidefile',
    });
    expect(sink.text).not.toContain('/x/src');
  });

  it("gives ids from the history sequence after each write's own version, and replays frames as they were sent", () => {
    const history = new VersionIdGenerator();
    const hub = new EventHub({ nextId: () => history.next() });
    const sink = new FakeSink();
    hub.add(sink);
    const versions = Array.from({ length: 5 }, () => history.next());
    for (const version of versions) hub.publish(writeEvent({ version }));
    const ids = [...sink.text.matchAll(/^id: (\S+)$/gm)].map((m) => m[1]!);
    expect(ids).toHaveLength(5);
    ids.forEach((id, i) => expect(id > versions[i]!).toBe(true));
    expect([...ids].sort()).toEqual(ids);
    // Frames published while no stream is open are built when replayed, as a live one is.
    sink.destroy();
    hub.publish(writeEvent({ version: history.next() }));
    const { frames } = hub.framesSince('');
    expect(frames).toHaveLength(6);
    expect(frames.slice(0, 5).map((f) => f.text)).toEqual(sink.chunks.slice(1));
    const last = frames[5]!;
    expect(last.text).toBe(
      `id: ${last.id}\nevent: file_changed\ndata: ${JSON.stringify(fileChangedData(writeEvent({ version: last.version })))}\n\n`,
    );
    hub.closeAll();
  });

  it('sends heartbeat comments', async () => {
    const hub = new EventHub({ heartbeatMs: 5 });
    const sink = new FakeSink();
    hub.add(sink);
    await new Promise((r) => setTimeout(r, 30));
    hub.closeAll();
    expect(sink.text).toContain(': heartbeat\n\n');
  });

  it('drops a client that does not read, with a final notice, while others keep receiving', () => {
    const hub = new EventHub({ maxBufferedBytes: 600, closeGraceMs: 10_000 });
    const slow = new FakeSink(false);
    const fast = new FakeSink();
    hub.add(slow);
    hub.add(fast);
    for (let i = 0; i < 10; i += 1) hub.publish(writeEvent({ additions: i }));
    expect(slow.ended).toBe(true);
    expect(slow.text).toContain('event: dropped');
    expect(slow.text.match(/event: file_changed/g)!.length).toBeLessThan(10);
    expect(fast.text.match(/event: file_changed/g)).toHaveLength(10);
    expect(hub.stats()).toEqual({ clients: 1, dropped: 1 });
    hub.closeAll();
  });

  it('cuts a dropped client that will not take the notice after the grace time', async () => {
    const hub = new EventHub({ maxBufferedBytes: 300, closeGraceMs: 5 });
    const slow = new FakeSink(false);
    hub.add(slow);
    for (let i = 0; i < 5; i += 1) hub.publish(writeEvent());
    await new Promise((r) => setTimeout(r, 30));
    expect(slow.destroyed).toBe(true);
    hub.closeAll();
  });

  it('closes every stream on closeAll and refuses new ones after', () => {
    const hub = new EventHub();
    const a = new FakeSink();
    hub.add(a);
    hub.closeAll();
    expect(a.ended).toBe(true);
    expect(a.text).toContain('event: shutdown');
    const late = new FakeSink();
    expect(hub.add(late)).toBe(false);
    hub.publish(writeEvent());
    expect(a.text).not.toContain('file_changed');
  });

  it('forgets a client whose connection closed', () => {
    const hub = new EventHub();
    const a = new FakeSink();
    hub.add(a);
    a.destroy();
    hub.publish(writeEvent());
    expect(hub.stats().clients).toBe(0);
    hub.closeAll();
  });
});
