import { fail } from './config-error.js';

// Settings that hold lists: origins, hosts and metadata pairs.

/** `KEY=VALUE` pairs, comma-separated (a repeated flag arrives joined with commas). */
export function parseMetadata(text: string): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const entry of text
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const m = /^([A-Za-z_][A-Za-z0-9_.-]{0,127})=(.*)$/.exec(entry);
    if (!m) fail('metadata', `expected KEY=VALUE, got "${entry}"`);
    pairs[m[1]!] = m[2]!;
  }
  return pairs;
}

/** `--allowed-origins`: each a `scheme://host[:port]` origin, kept in URL-normalized form. */
export function parseOrigins(text: string): string[] {
  return splitList(text).map((entry) => {
    let url: URL | undefined;
    try {
      url = new URL(entry);
    } catch {
      url = undefined;
    }
    const bare = url && /^https?:$/.test(url.protocol) && url.pathname === '/' && !url.search && !url.hash && !url.username;
    if (!url || !bare || entry.replace(/\/$/, '') !== entry.replace(/\/$/, '').trim()) {
      fail('allowed-origins', `expected origins like https://app.example.com, got "${entry}"`);
    }
    return url.origin;
  });
}

/** `--allowed-hosts`: `name` (any port) or `name:port`, lowercase. */
export function parseHosts(text: string): string[] {
  return splitList(text).map((entry) => {
    const host = entry.toLowerCase();
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9_]([a-z0-9_.-]*[a-z0-9_])?)(:\d{1,5})?$/.test(host)) {
      fail('allowed-hosts', `expected host names like devbox.lan or devbox.lan:8080, got "${entry}"`);
    }
    return host;
  });
}

function splitList(text: string): string[] {
  return text
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
}
