// Headless Chromium for the browser tests: Debian's /usr/bin/chromium (or CHROMIUM_PATH), with the flags a sandbox-less
// container with no network beyond loopback needs.

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Demo } from '../../demo/server';

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

/** A page in a fresh context (the viewport given, every wait up to `timeoutMs`), its uncaught errors pushed to `errors`. */
export async function newPage(
  browser: Browser,
  errors: string[],
  { width = 1400, height = 900, timeoutMs = 15_000 } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width, height } });
  context.setDefaultTimeout(timeoutMs);
  const page = await context.newPage();
  page.on('pageerror', (error) => errors.push(error.message));
  return { context, page };
}

/** The demo listening on a free loopback port: its origin, and a close that ends its router, then the server. */
export async function serveDemo(demo: Demo): Promise<{ origin: string; close(): Promise<void> }> {
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = demo.app.listen(0, '127.0.0.1', () => resolve(listening));
    listening.once('error', reject);
  });
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      await demo.mcp.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
