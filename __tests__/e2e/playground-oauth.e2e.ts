// The demo in AUTH=oauth mode in headless Chromium: the playground signs in through OAuth (DCR, PKCE, redirect to the
// demo's login page and the consent page, and back) and calls whoami as that user; and a person's browser completes
// docs/examples/oauth-client.mts's sign-in, whose redirect URI is on another origin (the script's loopback port).

import type { Browser, Page } from 'playwright-core';
import { createDemo, type Demo } from '../../demo/server';
import { launchChromium } from '../helpers/chromium';
import { startOAuthClientScript } from '../helpers/oauth-client-script';
import { listenLocally, type Listening } from '../helpers/ports';

// Starting Chromium takes a few seconds; every wait below is for a condition, never a fixed time.
jest.setTimeout(60_000);

let demo: Demo;
let app: Listening;
let origin: string;
let browser: Browser;

beforeAll(async () => {
  demo = createDemo({ oauth: true });
  app = await listenLocally(demo.app);
  origin = `http://127.0.0.1:${app.port}`;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await demo?.mcp.close();
  await app?.close();
});

/** A person on the demo's login page, then the consent page: signs in as `user` and allows. */
async function signInAndAllow(page: Page, user: string): Promise<void> {
  await page.waitForURL((url) => url.pathname === '/login');
  await page.fill('#user', user);
  await page.click('button[type="submit"]');
  await page.waitForURL((url) => url.pathname === '/mcp/oauth/authorize' || url.pathname === '/mcp/oauth/consent');
  await page.click('button[value="allow"]');
}

it('the playground signs in through OAuth from its #signin link, connects with the access token and calls whoami as the user', async () => {
  const context = await browser.newContext();
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(`${origin}/playground/#signin`);
  await signInAndAllow(page, 'carol');

  await page.waitForSelector('[data-testid="status"][data-state="connected"]');
  // Back on the playground, the code and state are gone from the address bar; the token is the router's JWT.
  expect(page.url()).toBe(`${origin}/playground/`);
  expect(await page.inputValue('#token')).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  const session = (await context.cookies()).find((cookie) => cookie.name === 'demo_session');
  expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });

  await page.click('[data-testid="tool-item"][data-name="whoami"]');
  const view = page.locator('[data-testid="tool-view"][data-tool="whoami"]');
  await view.locator('[data-testid="call-tool"]').click();
  const result = view.locator('[data-testid="result"]');
  await result.waitFor();
  expect(JSON.parse((await result.locator('[data-testid="structured-content"]').textContent()) ?? 'null')).toEqual({
    user: 'carol',
    scopes: ['store:read', 'store:write'],
  });
  expect(pageErrors).toEqual([]);
  await context.close();
});

it('the Sign in button shows why when the endpoint asks for no sign-in, and the page stays put', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${origin}/playground/#endpoint=${encodeURIComponent(`${origin}/nothing-here`)}`);
  await page.click('[data-testid="sign-in"]');
  const error = page.locator('[data-testid="connection-error"] [data-testid="error"]');
  await error.waitFor();
  expect(await error.textContent()).toContain(
    `Sign in: Error${origin}/nothing-here does not ask for sign-in (HTTP 404)`,
  );
  expect(new URL(page.url()).pathname).toBe('/playground/');
  await context.close();
});

it("a person's browser completes docs/examples/oauth-client.mts's sign-in: consent redirects to the script's loopback port", async () => {
  const script = startOAuthClientScript(`${origin}/mcp`);
  const context = await browser.newContext();
  context.setDefaultTimeout(15_000);
  try {
    const page = await context.newPage();
    await page.goto(await script.signInUrl);
    await signInAndAllow(page, 'dave');
    await page.waitForURL((url) => url.pathname === '/callback');
    expect(await page.textContent('body')).toContain('Signed in: you can close this tab');
    const { code, stdout, stderr } = await script.ended();
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toContain('whoami: {"user":"dave",');
  } finally {
    await context.close();
    await script.kill();
  }
});
