import { sep } from 'node:path';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { AppServices } from '../app-services.js';
import type { Log, ResolvedPath } from '../tools/types.js';
import { pathOfUri, protocolError, resourceError, uriOfPath } from './resources.js';

/** Subscriptions one subscriber (a 2025 session or a 2026 listen stream) may hold. */
export const MAX_SUBSCRIPTIONS = 1000;

/** One subscribed resource: a file, or a folder standing for its whole subtree. */
export interface Subscription {
  uri: string;
  folder: boolean;
}

/** Real paths subscribed to → what was subscribed. */
export type Subscriptions = Map<string, Subscription>;

/**
 * The URI to announce for a change to `real`, or null when no subscription covers it. A file
 * subscription announces the URI it was made with; a folder subscription announces the changed
 * file's own URI (the specification's "a sub-resource of the one subscribed to").
 */
export function coveredUri(subscriptions: Subscriptions, real: string, relative: string): string | null {
  const exact = subscriptions.get(real);
  if (exact) return exact.uri;
  for (const [path, sub] of subscriptions) {
    if (sub.folder && (real.startsWith(path.endsWith(sep) ? path : path + sep) || real === path)) return uriOfPath(relative);
  }
  return null;
}

/**
 * Resolves a URI through the path policy (checks, read deny globs) and adds it. A file
 * that does not exist yet may be subscribed to (its creation is a change); a folder covers its
 * subtree.
 */
/** A file (which may not exist yet) or, when the path is a folder, that folder. */
async function resolveTarget(services: AppServices, uri: string): Promise<ResolvedPath> {
  const path = pathOfUri(uri);
  try {
    return await services.resolve(path, 'read', 'file');
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'NOT_A_FILE') throw err;
    return services.resolve(path, 'read', 'directory');
  }
}

export async function subscribe(services: AppServices, subscriptions: Subscriptions, uri: string, log: Log): Promise<void> {
  try {
    const target = await resolveTarget(services, uri);
    if (!subscriptions.has(target.real) && subscriptions.size >= MAX_SUBSCRIPTIONS) {
      throw protocolError(
        ErrorCode.InvalidParams,
        `At most ${MAX_SUBSCRIPTIONS} subscriptions per subscriber: unsubscribe from some first.`,
      );
    }
    subscriptions.set(target.real, { uri, folder: target.stat?.isDirectory() ?? false });
  } catch (err) {
    throw resourceError(err, log);
  }
}

export async function unsubscribe(services: AppServices, subscriptions: Subscriptions, uri: string, log: Log): Promise<void> {
  try {
    subscriptions.delete((await resolveTarget(services, uri)).real);
  } catch (err) {
    throw resourceError(err, log);
  }
}
