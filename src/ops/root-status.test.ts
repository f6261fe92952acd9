import { constants } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { rootProblem, type RootStatusFs } from './root-status.js';

const denied = (): Promise<void> => Promise.reject(Object.assign(new Error('no'), { code: 'EACCES' }));

/** A folder whose access(2) refuses the modes in `refused` (what a non-root user meets). */
function folder(refused: number): RootStatusFs {
  return {
    stat: async () => ({ isDirectory: () => true }),
    access: async (_path, mode) => ((mode & refused) !== 0 ? denied() : undefined),
  };
}

describe('rootProblem (/readyz reasons)', () => {
  it('is null for a readable, writable folder', async () => {
    expect(await rootProblem('/ws', false, folder(0))).toBeNull();
  });

  it('names an unwritable root, unless read-only mode needs no writes', async () => {
    expect(await rootProblem('/ws', false, folder(constants.W_OK))).toBe('root not writable');
    expect(await rootProblem('/ws', true, folder(constants.W_OK))).toBeNull();
  });

  it('names an unreadable root, in read-only mode too', async () => {
    expect(await rootProblem('/ws', false, folder(constants.R_OK))).toBe('root not readable');
    expect(await rootProblem('/ws', true, folder(constants.X_OK))).toBe('root not readable');
  });

  it('names a missing root and one that is not a folder', async () => {
    const missing: RootStatusFs = {
      stat: () => Promise.reject(Object.assign(new Error(), { code: 'ENOENT' })),
      access: async () => undefined,
    };
    expect(await rootProblem('/ws', false, missing)).toBe('root missing');
    const file: RootStatusFs = { stat: async () => ({ isDirectory: () => false }), access: async () => undefined };
    expect(await rootProblem('/ws', false, file)).toBe('root not a folder');
  });
});
