/**
 * A real headless Chromium for UI tests: Debian's `chromium` package (installed by .ci/run when
 * missing) driven by playwright-core. Never downloads a browser.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = process.env.MCPSCOPE_CHROMIUM ?? '/usr/bin/chromium';

export function hasChromium(): boolean {
  return existsSync(CHROMIUM_PATH);
}

export async function launchBrowser(): Promise<Browser> {
  if (!hasChromium()) {
    throw new Error(
      `No Chromium at ${CHROMIUM_PATH}: install Debian's chromium package (apt-get install chromium), or set MCPSCOPE_CHROMIUM.`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--no-sandbox',
      '--headless',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}
