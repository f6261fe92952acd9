/**
 * autocannon against one route, every request in a fresh X-Session-Id (so Read's dedup never
 * answers), reporting requests/s and latency.
 */
import autocannon from 'autocannon';

export interface Load {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

let sessionCounter = 0;

export async function load(
  url: string,
  options: { method?: 'GET' | 'POST'; body?: unknown; seconds: number; connections: number },
): Promise<Load> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: options.seconds,
    requests: [
      {
        method: options.method ?? 'GET',
        ...(body ? { body, headers: { 'content-type': 'application/json' } } : {}),
        setupRequest: (req: Record<string, any>) => {
          sessionCounter += 1;
          req.headers = { ...req.headers, 'x-session-id': `bench-${process.pid}-${sessionCounter}` };
          return req;
        },
      },
    ],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}
