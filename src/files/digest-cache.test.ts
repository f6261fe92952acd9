import type { BigIntStats } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createDigestCache } from './digest-cache.js';

const MS = 1_000_000n;
const T = 1_800_000_000_123_456_789n;

function stamp(fields: { mtimeNs?: bigint; ctimeNs?: bigint; size?: bigint } = {}): BigIntStats {
  const ctimeNs = fields.ctimeNs ?? T;
  return { dev: 2049n, ino: 77n, size: fields.size ?? 4096n, mtimeNs: fields.mtimeNs ?? ctimeNs, ctimeNs } as BigIntStats;
}

const local = createDigestCache({ isLocal: () => true });

describe('the digest cache and its racy rule', () => {
  it('refuses a stamp whose change time is within 50 ms of when it was taken: a same-tick rewrite gets a fresh hash', () => {
    local.clear();
    const st = stamp();
    expect(local.remember(-1, st, T + 10n * MS, 'a'.repeat(64))).toBe(false);
    // An outside write of the same size in the same tick leaves exactly this stamp: nothing cached answers for it.
    expect(local.get(stamp())).toBeUndefined();
    expect(local.remember(-1, st, T + 49n * MS, 'a'.repeat(64))).toBe(false);
    expect(local.get(st)).toBeUndefined();
  });

  it('keeps a digest whose file was still for the window, and answers only for the exact stamp', () => {
    local.clear();
    expect(local.remember(-1, stamp(), T + 50n * MS, 'b'.repeat(64))).toBe(true);
    expect(local.get(stamp())).toBe('b'.repeat(64));
    expect(local.get(stamp({ ctimeNs: T + 1n }))).toBeUndefined();
    expect(local.get(stamp({ mtimeNs: T - 1n, ctimeNs: T }))).toBeUndefined();
    expect(local.get(stamp({ size: 4097n }))).toBeUndefined();
  });

  it('keeps a recent stamp whose modification time differs from its change time: any write would set both', () => {
    local.clear();
    const own = stamp({ mtimeNs: T - MS, ctimeNs: T });
    expect(local.remember(-1, own, T + 1n, 'c'.repeat(64))).toBe(true);
    expect(local.get(own)).toBe('c'.repeat(64));
    // The write that follows in the same tick: both times become the tick, the stamp moves.
    expect(local.get(stamp({ mtimeNs: T, ctimeNs: T }))).toBeUndefined();
  });

  it('waits 2 s for whole-second stamps', () => {
    local.clear();
    const whole = 1_800_000_000_000_000_000n;
    expect(local.remember(-1, stamp({ ctimeNs: whole }), whole + 1_999n * MS, 'd'.repeat(64))).toBe(false);
    expect(local.remember(-1, stamp({ ctimeNs: whole }), whole + 2_000n * MS, 'd'.repeat(64))).toBe(true);
  });

  it('never caches on a file system stamped by another clock (NFS, FUSE…)', () => {
    const remote = createDigestCache({ isLocal: () => false });
    expect(remote.remember(-1, stamp(), T + 3_600_000n * MS, 'e'.repeat(64))).toBe(false);
    expect(remote.remember(-1, stamp({ mtimeNs: T - MS }), T, 'e'.repeat(64))).toBe(false);
    expect(remote.get(stamp())).toBeUndefined();
  });
});
