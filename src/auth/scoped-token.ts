import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * agent-sandbox's scoped tokens (sandbox-router/authz/scopedtoken.go): `v1.<payload>.<signature>`,
 * both parts unpadded base64url; the payload is the JSON claims `{ "ns", "name", "exp" }` (exp in
 * Unix seconds, exclusive) and the signature HMAC-SHA256 over `agent-sandbox/scoped-token/v1.`
 * followed by the payload text, keyed with the shared secret trimmed of surrounding whitespace.
 */
const VERSION = 'v1';
const MAC_CONTEXT = `agent-sandbox/scoped-token/${VERSION}.`;
/** The router refuses shorter secrets at start-up: every token is an offline oracle for the secret. */
export const MIN_SCOPED_SECRET_BYTES = 32;
/** Clocks of the minting side and this pod may differ: a token is accepted this long after its expiry. */
export const SCOPED_TOKEN_SKEW_SECONDS = 30;

export interface ScopedTokenScope {
  /** The shared secret, already trimmed (see normalizeScopedSecret). */
  secret: Buffer;
  namespace: string;
  name: string;
}

/** Go's bytes.TrimSpace on ASCII whitespace; null when fewer than 32 bytes remain. */
export function normalizeScopedSecret(raw: Buffer): Buffer | null {
  let start = 0;
  let end = raw.length;
  const space = (b: number | undefined): boolean => b === 0x20 || (b !== undefined && b >= 0x09 && b <= 0x0d);
  while (start < end && space(raw[start])) start += 1;
  while (end > start && space(raw[end - 1])) end -= 1;
  const secret = Buffer.from(raw.subarray(start, end));
  return secret.length >= MIN_SCOPED_SECRET_BYTES ? secret : null;
}

/** Strict unpadded base64url, as Go's base64.RawURLEncoding decodes it; null when it does not. */
function decodeRawUrl(text: string): Buffer | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  const bytes = Buffer.from(text, 'base64url');
  // Go rejects non-zero padding bits only in Strict mode (not used): re-encoding is not compared.
  return bytes;
}

function sign(secret: Buffer, payload: string): Buffer {
  return createHmac('sha256', secret).update(MAC_CONTEXT).update(payload).digest();
}

interface Claims {
  ns: string;
  name: string;
  exp: number;
}

/** encoding/json's rules for the claims: keys match case-insensitively, the last one wins, wrong types fail. */
function parseClaims(payload: Buffer): Claims | null {
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const claims: Claims = { ns: '', name: '', exp: 0 };
  for (const [key, field] of Object.entries(value as Record<string, unknown>)) {
    const name = key.toLowerCase();
    if (field === null || (name !== 'ns' && name !== 'name' && name !== 'exp')) continue;
    if (name === 'exp') {
      if (typeof field !== 'number' || !Number.isSafeInteger(field)) return null;
      claims.exp = field;
    } else {
      if (typeof field !== 'string') return null;
      claims[name] = field;
    }
  }
  return claims;
}

/**
 * True when `token` is a v1 scoped token signed with the secret, naming exactly this sandbox, and
 * `nowSeconds` is before its expiry plus the allowed skew. Security: the signature is compared in
 * constant time before the payload is decoded, as the router does.
 */
export function verifyScopedToken(token: string, scope: ScopedTokenScope, nowSeconds: number): boolean {
  const [version, payload, signature, ...extra] = token.split('.');
  if (version !== VERSION || payload === undefined || signature === undefined) return false;
  // The router's second cut leaves any further dot in the signature, which then fails to decode.
  if (extra.length > 0) return false;
  const given = decodeRawUrl(signature);
  const expected = sign(scope.secret, payload);
  // Security: constant time; a length mismatch reveals only that the signature is malformed.
  if (given === null || given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
  const decoded = decodeRawUrl(payload);
  const claims = decoded === null ? null : parseClaims(decoded);
  if (claims === null) return false;
  if (nowSeconds >= claims.exp + SCOPED_TOKEN_SKEW_SECONDS) return false;
  return claims.ns === scope.namespace && claims.name === scope.name;
}
