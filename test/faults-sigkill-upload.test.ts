/**
 * SIGKILL of the real server during a streamed PUT leaves the old file or the
 * new one, never a mix, and no temp file after the restart (start-up removes what its journal
 * lists). 16 MiB here; the 1 GiB version is in test/heavy/.
 */
import { describe, expect, it } from 'vitest';
import { killDuringUploads } from './support/kill-upload.js';

const KILLS = Number(process.env.SIDEFILE_FAULT_KILLS ?? 4);

describe('SIGKILL during an upload', () => {
  it('leaves the old file or the new, never a mix, and no temp file', { timeout: 120_000 }, async () => {
    const report = await killDuringUploads(16 * 1024 * 1024, KILLS);
    console.log(`upload kills: ${JSON.stringify(report)}`);
    expect(report.kills).toBe(KILLS);
    expect(report.mixed).toBe(0);
    expect(report.temps).toBe(0);
    expect(report.oldKept + report.newLanded).toBe(KILLS);
  });
});
