// Child process for crash.test.ts: rewrites one file atomically, A then B then A…, until killed.
import { atomicWrite } from '../src/write/atomic-writer.js';

const [root, dataDir, target, size] = process.argv.slice(2) as [string, string, string, string];
const contents = [Buffer.alloc(Number(size), 'b'), Buffer.alloc(Number(size), 'a')];

process.stdout.write('ready\n');
for (let i = 0; ; i += 1) {
  await atomicWrite({ root, dataDir, target: { absolute: target, real: target }, bytes: contents[i % 2]!, previous: null });
}
