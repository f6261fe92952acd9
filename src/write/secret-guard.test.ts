import { describe, expect, it } from 'vitest';
import { isToolError } from '../errors.js';
import { assertNoAddedSecret, isProtectedFile } from './secret-guard.js';

const AWS = 'AKIA' + 'IOSFODNN7EXAMPLE';
const GH = 'ghp_' + 'a'.repeat(36);
const SLACK = 'xoxb-' + '1234567890-abcdefghij';
const OPENAI = 'sk-proj-' + 'Ab3'.repeat(16);
const ANTHROPIC = 'sk-ant-api03-' + 'x9Y'.repeat(30);
const KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n-----END OPENSSH PRIVATE KEY-----';

function refusal(paths: string[], before: string, after: string) {
  try {
    assertNoAddedSecret(paths, before, after);
    return null;
  } catch (err) {
    return isToolError(err) ? err : null;
  }
}

describe('secret guard', () => {
  it('protects agent instruction files at any depth and anything under a memory folder', () => {
    for (const p of ['CLAUDE.md', 'a/b/AGENTS.md', 'GEMINI.md', 'x/QWEN.md', '.cursorrules', 'memory/notes.md', 'a/memory/b/c.txt']) {
      expect(isProtectedFile(p), p).toBe(true);
    }
    for (const p of ['memory.md', 'docs/memory.md', 'README.md', 'claude.md.bak', 'a/memory']) {
      expect(isProtectedFile(p), p).toBe(false);
    }
  });

  for (const [kind, secret] of [
    ['AWS', AWS],
    ['GitHub', GH],
    ['Slack', SLACK],
    ['OpenAI', OPENAI],
    ['Anthropic', ANTHROPIC],
    ['private key', KEY],
  ] as const) {
    it(`refuses a ${kind} secret added to CLAUDE.md without echoing it`, () => {
      const err = refusal(['CLAUDE.md'], '# notes\n', `# notes\ntoken: ${secret}\n`);
      expect(err?.code).toBe('SECRET_DETECTED');
      expect(err?.message).not.toContain(secret.slice(0, 12));
      expect(JSON.stringify(err?.details)).not.toContain(secret.slice(0, 12));
    });
  }

  it('lets a secret already in the file stay', () => {
    expect(refusal(['CLAUDE.md'], `key ${AWS}\n`, `key ${AWS}\nmore\n`)).toBeNull();
  });

  it('does not guard other files', () => {
    expect(refusal(['src/config.ts'], '', `const k = '${AWS}';`)).toBeNull();
  });

  it('guards the real path behind a link', () => {
    expect(refusal(['notes.md', 'AGENTS.md'], '', GH)?.code).toBe('SECRET_DETECTED');
  });

  it('compares protected names case-insensitively, CLAUDE.local.md and any-case memory folders included', () => {
    for (const p of [
      'claude.md',
      'CLAUDE.local.md',
      'claude.LOCAL.md',
      'agents.MD',
      'a/Gemini.md',
      'QWEN.MD',
      '.CursorRules',
      'Memory/x.txt',
      'a/MEMORY/b.json',
    ]) {
      expect(isProtectedFile(p), p).toBe(true);
      expect(refusal([p], '', `token ${GH}\n`)?.code, p).toBe('SECRET_DETECTED');
    }
    for (const p of ['Memory.md', 'docs/MEMORY.MD', 'claude.md.bak', 'a/Memory']) expect(isProtectedFile(p), p).toBe(false);
  });

  it('finds a token written as JSON escapes in a protected notebook or JSON file', () => {
    const escaped = '\\u0067hp_' + 'a'.repeat(36); // \u0067hp_… in the JSON text is ghp_…
    const nb = (source: string) =>
      `{"cells":[{"cell_type":"markdown","metadata":{},"source":"${source}"}],"metadata":{},"nbformat":4,"nbformat_minor":4}`;
    for (const p of ['memory/notes.ipynb', 'memory/keys.json', 'Memory/keys.JSON']) {
      const err = refusal([p], nb('hello'), nb(`token ${escaped}`));
      expect(err?.code, p).toBe('SECRET_DETECTED');
      expect(JSON.stringify(err?.details)).not.toContain('aaaaaaaaaaaa');
    }
    // The same token already there (escaped or not) may stay; other files are not checked.
    expect(refusal(['memory/notes.ipynb'], nb(`old ${GH}`), nb(`token ${escaped} old ${GH}`))).toBeNull();
    expect(refusal(['notes/notes.ipynb'], nb('hello'), nb(`token ${escaped}`))).toBeNull();
  });
});
