import { ToolError } from '../errors.js';

/** Agent instruction files, protected at any depth, in lower case. */
const PROTECTED_NAMES = new Set(['claude.md', 'claude.local.md', 'agents.md', 'gemini.md', 'qwen.md', '.cursorrules']);

/**
 * True for an agent instruction or memory file: a protected name, or anything under a `memory`
 * folder. Security: names are compared case-insensitively — on a case-insensitive volume, or
 * for an agent that loads `claude.md`, `Claude.MD` is the same file.
 */
export function isProtectedFile(relative: string): boolean {
  const parts = relative
    .toLowerCase()
    .split('/')
    .filter((p) => p !== '' && p !== '.');
  const name = parts[parts.length - 1];
  if (name !== undefined && PROTECTED_NAMES.has(name)) return true;
  // Only folders count: `memory.md` or a file named `memory` elsewhere is not protected.
  return parts.slice(0, -1).includes('memory');
}

/** Known secret formats. Each pattern is global: every occurrence is checked. */
const SECRET_PATTERNS: Array<[kind: string, pattern: RegExp]> = [
  ['private key', /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g],
  ['AWS access key', /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b/g],
  ['AWS secret key', /aws_?secret_?access_?key["']?\s*[:=]\s*["']?[A-Za-z0-9/+=]{40}\b/gi],
  ['GitHub token', /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g],
  ['Slack token', /\bxox[abposr]-[A-Za-z0-9-]{10,}/g],
  ['Slack webhook', /https:\/\/hooks\.slack\.com\/services\/T[A-Z0-9]+\/B[A-Z0-9]+\/[A-Za-z0-9]+/g],
  ['Anthropic API key', /\bsk-ant-[a-z]+\d*-[A-Za-z0-9_-]{20,}/g],
  ['OpenAI API key', /\bsk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{32,}/g],
  ['Google API key', /\bAIza[0-9A-Za-z_-]{35}\b/g],
  ['Stripe key', /\b[sr]k_live_[0-9A-Za-z]{24,}\b/g],
  ['GitLab token', /\bglpat-[A-Za-z0-9_-]{20,}\b/g],
  ['npm token', /\bnpm_[A-Za-z0-9]{36}\b/g],
  ['Hugging Face token', /\bhf_[A-Za-z0-9]{34,}\b/g],
];

/** Kinds of secret that `after` has and `before` does not. The secrets themselves are never returned. */
export function addedSecretKinds(before: string, after: string): string[] {
  const kinds: string[] = [];
  for (const [kind, pattern] of SECRET_PATTERNS) {
    for (const match of after.matchAll(pattern)) {
      if (!before.includes(match[0])) {
        kinds.push(kind);
        break;
      }
    }
  }
  return kinds;
}

/**
 * Refuses content that adds a secret to a protected file. `paths` are the relative paths the
 * write reaches (the one named and, behind a link, the real one).
 */
export function assertNoAddedSecret(paths: string[], before: string, after: string): void {
  if (!paths.some(isProtectedFile)) return;
  const kinds = addedSecretKinds(before, after);
  // Security: in JSON a token can hide behind escapes (`\u0067hp_…` is `ghp_…`): a protected
  // notebook or JSON file is also checked on its decoded strings.
  if (kinds.length === 0 && paths.some(isJsonFile)) kinds.push(...addedSecretKinds(jsonStrings(before), jsonStrings(after)));
  if (kinds.length === 0) return;
  // Security: name the kind only; the secret is never echoed, logged or stored.
  throw new ToolError(
    'SECRET_DETECTED',
    `Refused: the content adds a secret (${kinds.join(', ')}) to an agent instruction or memory file, ` +
      'which agents load into every conversation. Keep secrets in environment variables or a secret store, and refer to them by name.',
    { kinds },
  );
}

function isJsonFile(relative: string): boolean {
  return /\.(?:ipynb|json)$/i.test(relative);
}

/** Every string (keys included) of a JSON text, one a line; '' when it is not JSON. */
function jsonStrings(text: string): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return '';
  }
  const out: string[] = [];
  // A stack, not recursion: the value may nest deeply.
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) for (const item of v) stack.push(item);
    else if (typeof v === 'object' && v !== null) {
      for (const [key, member] of Object.entries(v)) {
        out.push(key);
        stack.push(member);
      }
    }
  }
  return out.join('\n');
}
