import { describe, expect, it } from 'vitest';
import type { ReadRecord } from './types.js';
import {
  addFile,
  countFiles,
  entriesOf,
  fileOf,
  RecencyList,
  removeFile,
  SharedStamps,
  type Entry,
  type Session,
} from './session-files.js';

const rec = {} as ReadRecord;
const entry = (realPath: string): Entry => ({ session: 's', realPath, rec, older: null, newer: null });
const order = (list: RecencyList): string[] => {
  const out: string[] = [];
  for (let e = list.oldest; e !== null; e = e.newer) out.push(e.realPath);
  return out;
};

describe('session files', () => {
  it('holds one file without a Map, then every file in one, and lets them go again', () => {
    const s: Session = { lastActive: 0, one: null, many: null };
    const [a, b, c] = [entry('/a'), entry('/b'), entry('/c')];
    addFile(s, a);
    expect({ one: s.one, many: s.many, count: countFiles(s) }).toEqual({ one: a, many: null, count: 1 });
    expect(fileOf(s, '/a')).toBe(a);
    expect(fileOf(s, '/b')).toBeUndefined();
    addFile(s, b);
    addFile(s, c);
    expect(s.one).toBeNull();
    expect(entriesOf(s)).toEqual([a, b, c]);
    removeFile(s, '/b');
    expect([fileOf(s, '/b'), countFiles(s)]).toEqual([undefined, 2]);
    const single: Session = { lastActive: 0, one: a, many: null };
    removeFile(single, '/other');
    expect(single.one).toBe(a);
    removeFile(single, '/a');
    expect([countFiles(single), entriesOf(single)]).toEqual([0, []]);
  });
});

describe('RecencyList', () => {
  it('keeps records from least to most recently used', () => {
    const list = new RecencyList();
    const [a, b, c] = [entry('a'), entry('b'), entry('c')];
    list.add(a);
    list.add(b);
    list.add(c);
    expect(order(list)).toEqual(['a', 'b', 'c']);
    list.touch(a);
    expect(order(list)).toEqual(['b', 'c', 'a']);
    list.touch(a);
    list.delete(c);
    expect([order(list), list.size]).toEqual([['b', 'a'], 2]);
    list.delete(b);
    list.delete(a);
    expect([list.oldest, list.size]).toEqual([null, 0]);
    list.add(c);
    expect(order(list)).toEqual(['c']);
  });
});

describe('SharedStamps', () => {
  it("shares a file version's stamp, and takes a new one when the version changes", () => {
    const stamps = new SharedStamps();
    const v1 = { size: 1, mtimeMs: 1.5, ctimeMs: 1.5, ino: 7 };
    expect(stamps.get('/a', v1)).toBe(v1);
    expect(stamps.get('/a', { ...v1 })).toBe(v1);
    const v2 = { ...v1, mtimeMs: 2.5 };
    expect(stamps.get('/a', v2)).toBe(v2);
    expect(stamps.get('/b', { ...v2 })).not.toBe(v2);
  });
});
