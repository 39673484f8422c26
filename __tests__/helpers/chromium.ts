// Headless Chromium for the browser tests: Debian's /usr/bin/chromium (or CHROMIUM_PATH), with the flags a sandbox-less
// container with no network beyond loopback needs.

import { chromium, type Browser } from 'playwright-core';

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Starts headless Chromium; close it in afterAll. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
}
