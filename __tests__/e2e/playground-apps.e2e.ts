// The playground as an MCP Apps host, in headless Chromium against the demo: order_form's result renders the order
// form app through the sandbox proxy (another origin) under the CSP built from its resource, the view gets the
// tool result, its button calls the app-only submit_order_form through the host, and every message between the
// playground and the view shows in the traffic pane. The app-only tool is never in the playground's tool list.

import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Frame, Page } from 'playwright-core';
import { startSandbox, type Sandbox } from '../../demo/apps/sandbox';
import { createDemo, type Demo } from '../../demo/server';
import { launchChromium, newPage, serveDemo } from '../helpers/chromium';

const TOKEN = `e2e-${randomBytes(12).toString('base64url')}`;
const SCREENSHOT = process.env.APPS_SCREENSHOT ?? path.join(__dirname, '..', 'artifacts', 'apps-playground.png');

// Starting Chromium and bundling the App SDK take a few seconds; every wait is for a condition, never a fixed time.
jest.setTimeout(60_000);

describe('the playground hosting the demo app (headless Chromium)', () => {
  let sandbox: Sandbox;
  let demo: Demo;
  let served: Awaited<ReturnType<typeof serveDemo>>;
  let browser: Browser;
  let page: Page;
  let origin: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    sandbox = await startSandbox('127.0.0.1');
    demo = createDemo({ token: TOKEN, sandboxUrl: sandbox.url });
    served = await serveDemo(demo);
    origin = served.origin;
    browser = await launchChromium();
    ({ page } = await newPage(browser, pageErrors, { height: 1000, timeoutMs: 20_000 }));
  });

  afterAll(async () => {
    await browser?.close();
    await served?.close();
    await sandbox?.close();
  });

  /** The view's frame: the sandbox proxy's inner iframe (the document the app's HTML became). */
  async function viewFrame(): Promise<Frame> {
    const outer = await page.locator('[data-testid="app-frame"]').elementHandle();
    const proxy = await outer!.contentFrame();
    const inner = await proxy!.waitForSelector('#view[srcdoc]');
    return (await inner.contentFrame())!;
  }

  it('declares the UI extension, and lists order_form but not the app-only submit_order_form', async () => {
    await page.goto(`${origin}/playground/#token=${TOKEN}`);
    await page.waitForSelector('[data-testid="tool-item"][data-name="order_form"]');
    const names = await page
      .locator('[data-testid="tool-item"]')
      .evaluateAll((items) => items.map((i) => i.getAttribute('data-name')));
    expect(names).toContain('place_order');
    expect(names).not.toContain('submit_order_form');
    expect(await page.textContent('#count-tools')).toBe(String(names.length));
    const initialize = JSON.parse(
      (await page.locator('[data-testid="traffic-entry"][data-method="initialize"] pre.json').first().textContent()) ??
        'null',
    );
    expect(initialize.params.capabilities.extensions).toEqual({
      'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] },
    });
  });

  it('renders the app for an order_form result, through the sandbox on another origin, and the view gets the result', async () => {
    await page.click('[data-testid="tool-item"][data-name="order_form"]');
    const view = page.locator('[data-testid="tool-view"][data-tool="order_form"]');
    await view.locator('[data-testid="field-productId"]').fill('p3');
    await view.locator('[data-testid="field-quantity"]').fill('2');
    await view.locator('[data-testid="call-tool"]').click();
    await view.locator('[data-testid="app-view"][data-state="ready"]').waitFor();

    const outerSrc = await view.locator('[data-testid="app-frame"]').getAttribute('src');
    expect(new URL(outerSrc!).origin).toBe(new URL(sandbox.url).origin);
    expect(new URL(outerSrc!).origin).not.toBe(origin);

    const frame = await viewFrame();
    await frame.waitForSelector('[data-testid="picked"]:not(:empty)');
    expect(await frame.textContent('[data-testid="picked"]')).toContain('2 × Burr grinder');
    expect(await frame.inputValue('#product')).toBe('p3');
    expect(await frame.inputValue('#quantity')).toBe('2');
    // window.origin, the document's (inherited by the srcdoc); location.origin is about:srcdoc's, always "null".
    expect(await frame.evaluate('window.origin')).toBe(new URL(sandbox.url).origin);
  });

  it("runs the view under the CSP built from the resource's _meta.ui.csp: a fetch to an undeclared origin is refused", async () => {
    const frame = await viewFrame();
    // The sandbox page's URL carries the resource's csp: its server answers the page under the policy built from it.
    const outerSrc = await page.locator('[data-testid="app-frame"]').getAttribute('src');
    expect(JSON.parse(new URL(outerSrc!).searchParams.get('csp')!)).toEqual({
      connectDomains: [],
      resourceDomains: [],
    });
    // The demo's own origin is reachable and allows the fetch by CORS (the MCP endpoint): only the CSP stops it.
    // Run in the view (a string: this file is compiled without the DOM's types).
    const outcome = await frame.evaluate(`new Promise((resolve) => {
      document.addEventListener('securitypolicyviolation', (event) => resolve('violation ' + event.effectiveDirective), { once: true });
      fetch(${JSON.stringify(`${origin}/mcp`)}).then(() => resolve('fetched'), () => undefined);
    })`);
    expect(outcome).toBe('violation connect-src');
  });

  it('places the order from the view: the app-only tool, called through the host, and its result shows', async () => {
    const frame = await viewFrame();
    await frame.selectOption('#customer', 'c2');
    await frame.click('[data-testid="place-order"]');
    await frame.waitForSelector('[data-testid="order-status"][data-state="placed"]');
    expect(await frame.textContent('[data-testid="order-status"]')).toMatch(
      /^Order o\d+ placed: 2 × Burr grinder, 378 €\.$/,
    );
    const call = page
      .locator('[data-testid="traffic-entry"][data-source="server"][data-method="tools/call"] pre.json')
      .last();
    expect(JSON.parse((await call.textContent()) ?? 'null').params).toMatchObject({
      name: 'submit_order_form',
      arguments: { productId: 'p3', quantity: 2, customerId: 'c2' },
    });
  });

  it("shows the view's messages in the traffic pane, in the lifecycle's order", async () => {
    const methods = await page
      .locator('[data-testid="traffic-entry"][data-source="app"]')
      .evaluateAll((items) => items.map((i) => `${i.getAttribute('data-direction')} ${i.getAttribute('data-method')}`));
    const order = [
      'in ui/notifications/sandbox-proxy-ready',
      'out ui/notifications/sandbox-resource-ready',
      'in ui/initialize',
      'out response',
      'in ui/notifications/initialized',
      'out ui/notifications/tool-input',
      'out ui/notifications/tool-result',
      'in tools/call',
    ];
    const positions = order.map((entry) => methods.indexOf(entry));
    expect(positions).not.toContain(-1);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);

    mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
  });

  it('threw no uncaught errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
