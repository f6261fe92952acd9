import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTestApp, type TestApp } from './helpers.js';

/**
 * The docs page in a real browser: Swagger UI must load the generated document and
 * render the four tool operations. Runs wherever Debian's chromium is installed (CI installs
 * it); elsewhere it is skipped with the reason.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
export const SCREENSHOT = path.resolve(process.cwd(), 'test-artifacts', 'docs.png');

const TOOL_OPERATIONS = ['/v1/tools/read', '/v1/tools/edit', '/v1/tools/write', '/v1/tools/notebook_edit'];

if (!hasChromium) {
  console.warn(`docs-browser: skipped: no chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`);
}

describe.skipIf(!hasChromium)('GET /docs in headless Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    // A token is set: the docs page itself must still load without one.
    t = await makeTestApp({ config: { token: 'docs-test-token' } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('renders the four tool operations from the generated document, and saves a screenshot', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 2000 } });
    const failed: string[] = [];
    page.on('response', (res) => {
      if (res.status() >= 400) failed.push(`${res.status()} ${new URL(res.url()).pathname}`);
    });
    await page.goto(`${base}/docs`, { waitUntil: 'domcontentloaded' });
    for (const route of TOOL_OPERATIONS) {
      const block = page.locator('.opblock-post', { has: page.locator(`[data-path="${route}"]`) });
      await block.first().waitFor({ state: 'visible', timeout: 20_000 });
    }
    const paths = await page.locator('.opblock-summary-path').allInnerTexts();
    const normalized = paths.map((p) => p.replace(/\u200b/g, '').trim());
    expect(normalized).toEqual(
      expect.arrayContaining([...TOOL_OPERATIONS, '/v1/history', '/v1/history/restore', '/v1/events', '/metrics']),
    );
    // The bearer scheme is declared, so the page offers "Authorize".
    await expect(page.locator('.btn.authorize').first().isVisible()).resolves.toBe(true);
    expect(await page.locator('.swagger-ui .errors-wrapper').count()).toBe(0);
    // Opening Read shows its request body schema and its documented responses.
    const read = page.locator('.opblock-post', { has: page.locator('[data-path="/v1/tools/read"]') }).first();
    await read.locator('.opblock-summary').first().click();
    await read.locator('.opblock-section-request-body').waitFor({ state: 'visible', timeout: 10_000 });
    await read.locator('.responses-table').first().waitFor({ state: 'visible', timeout: 10_000 });
    const statuses = (await read.locator('.responses-table .response-col_status').allInnerTexts()).map((s) => s.trim());
    expect(statuses).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404', '413', '415']));
    expect(statuses).not.toContain('409');
    expect(failed).toEqual([]);
    await mkdir(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: false });
    expect(existsSync(SCREENSHOT)).toBe(true);
    await page.close();
  }, 60_000);
});
