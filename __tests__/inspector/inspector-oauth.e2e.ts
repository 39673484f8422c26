// A real third-party client signs in: the MCP Inspector's web UI (the version setup.sh pins), in headless Chromium,
// connects to `AUTH=oauth npm run demo` with no token, registers itself (DCR), sends the browser through the demo's
// login page and the router's consent page, comes back to its /oauth/callback, and calls whoami as the user; in its
// Direct mode (the browser talks to the router itself, CORS) and Via Proxy (its proxy relays MCP and discovery).

import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium } from '../helpers/chromium';
import { inspectorInstall, startInspectorUi, startOAuthDemo, type InspectorUi, type Started } from './processes';

// Installing the Inspector the first time takes minutes; after that, starting it and Chromium a few seconds. Every
// wait below is for a condition (a URL, an element), never a fixed time.
jest.setTimeout(120_000);

let demo: Started & { endpoint: string };
let inspector: InspectorUi;
let browser: Browser;

beforeAll(async () => {
  const installed = await inspectorInstall();
  [demo, inspector, browser] = await Promise.all([startOAuthDemo(), startInspectorUi(installed), launchChromium()]);
}, 900_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([inspector?.stop(), demo?.stop()]);
});

/** A fresh browser (the Inspector keeps its client and tokens in sessionStorage) that records CORS refusals. */
async function newPage(): Promise<{ context: BrowserContext; page: Page; corsErrors: string[] }> {
  const context = await browser.newContext();
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  const corsErrors: string[] = [];
  page.on('console', (message) => {
    if (message.text().includes('CORS policy')) corsErrors.push(message.text());
  });
  return { context, page, corsErrors };
}

/**
 * The Inspector's page for Streamable HTTP to the demo (its `transport` and `serverUrl` query parameters). The proxy's
 * address goes in MCP_PROXY_FULL_ADDRESS too: the Inspector reads MCP_PROXY_PORT from the address bar only, and its
 * OAuth callback (/oauth/callback) has none, so with a proxy port other than 6277 it would look for its proxy there.
 */
function inspectorUrl(): string {
  const url = new URL(inspector.url);
  url.searchParams.set('MCP_PROXY_FULL_ADDRESS', inspector.proxyAddress);
  url.searchParams.set('transport', 'streamable-http');
  url.searchParams.set('serverUrl', demo.endpoint);
  return url.href;
}

/** Connect (no token: the 401 starts the Inspector's OAuth flow), the demo's login as `user`, the consent page's Allow. */
async function connectAndSignIn(page: Page, user: string): Promise<void> {
  await page.getByRole('button', { name: 'Connect', exact: true }).click();
  await page.waitForURL((url) => url.pathname === '/login');
  await page.fill('#user', user);
  await page.click('button[type="submit"]');
  await page.waitForURL((url) => url.pathname === '/mcp/oauth/authorize');
  await page.click('button[value="allow"]');
  // Back at its /oauth/callback, which it replaces with / once it holds the tokens.
  await page.waitForURL((url) => url.origin === inspector.url.origin);
  await page.getByText('Connected', { exact: true }).waitFor();
}

/** The Tools tab: List Tools, whoami ("Who am I"), Run Tool; the result's text once shown. */
async function callWhoami(page: Page): Promise<string> {
  await page.getByRole('tab', { name: 'Tools' }).click();
  await page.getByRole('button', { name: 'List Tools' }).click();
  await page.getByText('Who am I', { exact: true }).click();
  await page.getByRole('button', { name: 'Run Tool' }).click();
  const result = page.locator('h4', { hasText: 'Tool Result:' }).locator('..');
  await result.waitFor();
  return result.innerText();
}

/** What the Inspector kept in sessionStorage for the demo's endpoint: its registration and its tokens. */
async function storedSignIn(
  page: Page,
): Promise<{ client: { client_id: string; redirect_uris: string[] }; accessToken: Record<string, unknown> }> {
  const stored = await page.evaluate((endpoint) => {
    // Runs in the page (the project's types have no DOM): the Inspector's keys are `[<server URL>] mcp_…`.
    const { sessionStorage } = globalThis as unknown as { sessionStorage: { getItem(key: string): string | null } };
    return {
      client: sessionStorage.getItem(`[${endpoint}] mcp_client_information`),
      tokens: sessionStorage.getItem(`[${endpoint}] mcp_tokens`),
    };
  }, demo.endpoint);
  const { access_token } = JSON.parse(stored.tokens ?? 'null') as { access_token: string };
  const payload = access_token.split('.')[1] as string;
  return {
    client: JSON.parse(stored.client ?? 'null'),
    accessToken: JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')),
  };
}

it.each([
  ['Direct', 'frank'],
  ['Via Proxy', 'grace'],
])(
  'the Inspector (%s) signs in through the demo login and consent, then calls whoami as the user',
  async (connectionType, user) => {
    const { context, page, corsErrors } = await newPage();
    try {
      await page.goto(inspectorUrl());
      await page.locator('#connection-type-select').click();
      await page.getByRole('option', { name: connectionType, exact: true }).click();
      await connectAndSignIn(page, user);

      const result = await callWhoami(page);
      expect(result).toContain('Tool Result: Success');
      expect(result).toMatch(new RegExp(`user:\\s*"${user}"`));
      expect(result).toContain('"store:write"');
      // The Inspector registered itself with its own callbacks, and holds the router's token for the demo's endpoint.
      const { client, accessToken } = await storedSignIn(page);
      expect(client.redirect_uris).toEqual([
        `${inspector.url.origin}/oauth/callback`,
        `${inspector.url.origin}/oauth/callback/debug`,
      ]);
      expect(accessToken).toMatchObject({
        sub: user,
        iss: demo.endpoint,
        aud: demo.endpoint,
        client_id: client.client_id,
        scope: 'store:read store:write',
      });
      // Its discovery and token requests were all readable: no preflight refused a header it sends.
      expect(corsErrors).toEqual([]);
    } finally {
      await context.close();
    }
  },
);
