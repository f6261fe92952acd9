/**
 * `npm run bench [-- name ... [--quick]]`: builds, then runs the named scenarios (default: all) in order,
 * printing figures as they come. One file per scenario; adding one is one line below.
 * Each scenario measures its own baseline in the same run and prints ratios to it.
 */
import { benchDiscovery } from './discovery.js';
import { benchEdit } from './edit.js';
import { benchFootprint } from './footprint.js';
import { benchFiles } from './files.js';
import { benchMcp } from './mcp.js';
import { benchNotebook } from './notebook.js';
import { benchNotebookRun } from './notebook-run.js';
import { benchPatch } from './patch.js';
import { benchPeers } from './peers.js';
import { benchRead } from './read.js';
import { benchStall } from './stall.js';

type Print = (line: string) => void;
/** `--quick`: the scenarios that know it run shorter (fewer seconds, fewer peers). */
const flags = new Set(process.argv.slice(2).filter((a) => a.startsWith('--')));
const quick = flags.has('--quick');

const SCENARIOS: Array<[name: string, run: (print: Print) => Promise<void>]> = [
  ['read', (print) => benchRead(print, { quick })],
  ['edit', (print) => benchEdit(print)],
  ['notebook', (print) => benchNotebook(print)],
  ['patch', (print) => benchPatch(print)],
  ['peers', (print) => benchPeers(print, { quick })],
  ['stall', (print) => benchStall(print)],
  ['discovery', (print) => benchDiscovery(print)],
  ['mcp', (print) => benchMcp(print)],
  ['footprint', (print) => benchFootprint(print, { quick })],
  ['files', (print) => benchFiles(print, { quick })],
  ['run', (print) => benchNotebookRun(print, { quick })],
];

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const unknown = wanted.filter((w) => !SCENARIOS.some(([name]) => name === w));
if (unknown.length > 0) {
  console.error(`unknown scenario(s): ${unknown.join(', ')}; known: ${SCENARIOS.map(([n]) => n).join(', ')}`);
  process.exit(2);
}
const print: Print = (line) => console.log(line);
for (const [name, run] of SCENARIOS) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  print(`\n== ${name} ==`);
  const started = performance.now();
  await run(print);
  print(`(${name}: ${((performance.now() - started) / 1000).toFixed(1)} s)`);
}
