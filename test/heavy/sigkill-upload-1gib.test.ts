/** SIGKILL during a 1 GiB streamed PUT: the old file or the new one, never a mix, no temp file after restart. */
import { describe, expect, it } from 'vitest';
import { killDuringUploads } from '../support/kill-upload.js';

const KILLS = Number(process.env.SIDEFILE_FAULT_KILLS ?? 4);

describe('SIGKILL during a 1 GiB upload', () => {
  it('leaves the old file or the new, never a mix, and no temp file', { timeout: 30 * 60_000 }, async () => {
    const report = await killDuringUploads(1024 * 1024 * 1024, KILLS);
    console.log(`1 GiB upload kills: ${JSON.stringify(report)}`);
    expect(report.mixed).toBe(0);
    expect(report.temps).toBe(0);
    expect(report.oldKept + report.newLanded).toBe(KILLS);
  });
});
