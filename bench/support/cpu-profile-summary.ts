/**
 * The top functions of a V8 .cpuprofile (what `node --cpu-prof` writes), by self time and by
 * inclusive time (the function and everything it called), as shares of all samples. The
 * samples are wall-clock: on a loaded machine descheduling smears them, ratios still hold.
 */
import { promises as fsp } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export async function summarizeProfile(file: string, top = 25): Promise<string> {
  const profile = JSON.parse(await fsp.readFile(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[] };
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const hits = new Map<number, number>();
  for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, count] of hits) {
    add(self, nameOf(byId.get(id)!), count);
    // Each function once per sample, however deep it recurses.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) seen.add(nameOf(byId.get(at)!));
    for (const name of seen) add(inclusive, name, count);
  }
  const total = profile.samples.length;
  const list = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, n]) => `${((100 * n) / total).toFixed(1).padStart(5)}%  ${name}`);
  return [`self (${total} samples):`, ...list(self), '', 'inclusive:', ...list(inclusive)].join('\n');
}

function nameOf(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url.replace(/.*node_modules\//, '').replace(/.*\/dist\//, 'dist/');
  return `${functionName || '(anonymous)'}${where ? ` ${where}:${lineNumber + 1}` : ''}`;
}

function add(m: Map<string, number>, key: string, n: number): void {
  m.set(key, (m.get(key) ?? 0) + n);
}
