import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import wabtInit from 'wabt';
import { describe, expect, it } from 'vitest';
import { HAS_CONTROL, HAS_HIGH, scanHead, scratchInScanMemory, WASM } from './control-scan.js';

/** What scan answers, byte by byte. */
function expected(head: Uint8Array): number {
  let flags = 0;
  for (const byte of head) {
    if ((byte < 0x20 && ![0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1b].includes(byte)) || byte === 0x7f) flags |= HAS_CONTROL;
    if (byte >= 0x80) flags |= HAS_HIGH;
  }
  return flags;
}

describe('control scan (WebAssembly SIMD)', () => {
  it('is the module control-scan.wat assembles to', async () => {
    const wabt = await wabtInit();
    const source = readFileSync(new URL('./control-scan.wat', import.meta.url), 'utf8');
    const assembled = Buffer.from(wabt.parseWat('control-scan.wat', source, { simd: true }).toBinary({}).buffer).toString('base64');
    expect(WASM).toBe(assembled);
  });

  it('finds every byte value at every lane and in the tail', () => {
    for (let byte = 0; byte < 256; byte++) {
      for (const at of [0, 1, 7, 15, 16, 17, 31, 32, 40]) {
        const head = Buffer.alloc(41, 0x61);
        head[at] = byte;
        expect(scanHead(head), `byte 0x${byte.toString(16)} at ${at}`).toBe(expected(head));
      }
    }
  });

  it('agrees with the rule on random heads of every length, also over 8 KiB and in the scratch buffer', () => {
    let seed = 5;
    const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
    const scratch = scratchInScanMemory();
    expect(scratch.length).toBe(1024 * 1024);
    for (let n = 0; n < 5000; n++) {
      const len = n % 10 === 0 ? 8000 + (next() % 9000) : next() % 100;
      const head = Buffer.alloc(len);
      for (let i = 0; i < len; i++) head[i] = next() % 50 === 0 ? next() % 256 : 0x20 + (next() % 95);
      expect(scanHead(head)).toBe(expected(head));
      head.copy(scratch, 3);
      expect(scanHead(scratch.subarray(3, 3 + len))).toBe(expected(head));
    }
  });
});

describe('control scan without WebAssembly (--jitless)', () => {
  it('answers null, and sniff decides byte by byte', () => {
    const script = [
      "const { scanHead, scratchInScanMemory } = await import('./src/text/control-scan.ts');",
      "const { sniff } = await import('./src/text/sniff.ts');",
      "const kinds = [Buffer.from('a\\x01b'), Buffer.from('plain\\ttext\\n'), Buffer.alloc(40, 0xe9)].map((h) => sniff(h).kind);",
      'console.log(JSON.stringify([typeof WebAssembly, scanHead(Buffer.from("x")), kinds, scratchInScanMemory().length]));',
    ].join('\n');
    const out = execFileSync(process.execPath, ['--jitless', '--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    expect(JSON.parse(out)).toEqual(['undefined', null, ['binary', 'text', 'binary'], 1024 * 1024]);
  });
});
