// The playground in headless Chromium against the demo store: connect on load with the token from the link, call
// audit_inventory with live progress and logs, pay for the paid tool with a test payment, read resources, get a
// prompt, call a tool of the notes upstream the demo mounts through its gateway and of its roaster upstream (a local
// program over stdio), and show a refused token.

import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createDemo, type Demo } from '../../demo/server';
import { startNotesUpstream, type NotesUpstream } from '../../demo/upstream';
import { launchChromium, newPage, serveDemo } from '../helpers/chromium';

const TOKEN = `e2e-${randomBytes(12).toString('base64url')}`;
const ARTIFACTS = path.join(__dirname, '..', 'artifacts');

// Starting Chromium takes a few seconds; every wait below is for a condition, never a fixed time.
jest.setTimeout(60_000);

describe('the playground (headless Chromium)', () => {
  let upstream: NotesUpstream;
  let demo: Demo;
  let served: Awaited<ReturnType<typeof serveDemo>>;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let origin: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    // As `npm run demo` does: the notes server first, then the demo mounting it under the prefix notes, and the
    // roaster (a child process) under the prefix roaster.
    upstream = await startNotesUpstream();
    demo = createDemo({ token: TOKEN, notesUrl: upstream.url, roaster: true });
    await Promise.all([demo.notes!.refresh(), demo.roaster!.refresh()]);
    served = await serveDemo(demo);
    origin = served.origin;
    browser = await launchChromium();
    ({ context, page } = await newPage(browser, pageErrors));
  });

  afterAll(async () => {
    await browser?.close();
    await served?.close();
    await upstream?.close();
  });

  const toolView = (name: string) => page.locator(`[data-testid="tool-view"][data-tool="${name}"]`);

  it('connects on load with the token from the link, without a click, and lists the demo tools', async () => {
    await page.goto(`${origin}/playground/#token=${TOKEN}`);
    await expect(page.inputValue('#endpoint')).resolves.toBe(`${origin}/mcp`);
    await expect(page.inputValue('#token')).resolves.toBe(TOKEN);

    await page.waitForSelector('[data-testid="status"][data-state="connected"]');
    await page.waitForSelector('[data-testid="tool-item"]');

    const tools = await page.locator('[data-testid="tool-item"] .item-title').allTextContents();
    expect(tools).toEqual(
      expect.arrayContaining(['audit_inventory', 'list_products', 'get_product', 'place_order', 'list_customers']),
    );
    expect(await page.textContent('#count-tools')).toBe(String(tools.length));
    expect(await page.textContent('[data-testid="session-id"]')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await page.textContent('[data-testid="server-name"]')).toBe('Demo coffee store');
    // The traffic panel shows the handshake, in order.
    const sent = page.locator('[data-testid="traffic-entry"][data-direction="out"]');
    expect([await sent.nth(0).getAttribute('data-method'), await sent.nth(1).getAttribute('data-method')]).toEqual([
      'initialize',
      'notifications/initialized',
    ]);
  });

  it('calls audit_inventory from its form, with live progress and log lines, and renders the result', async () => {
    await page.click('[data-testid="tool-item"][data-name="audit_inventory"]');
    const view = toolView('audit_inventory');
    // Defaults from the schema are prefilled; the form has a field per property.
    await expect(view.locator('[data-testid="field-delayMs"]').inputValue()).resolves.toBe('100');
    await view.locator('[data-testid="field-delayMs"]').fill('60');
    await view.locator('[data-testid="field-lowStockBelow"]').fill('4');
    await view.locator('[data-testid="call-tool"]').click();

    // Progress shows while the call still runs (the Cancel button is up), not only once it is over.
    await page.waitForSelector(
      '[data-testid="tool-view"][data-tool="audit_inventory"]:has([data-testid="cancel-call"]:not([hidden])) [data-testid="progress"]:not([hidden])',
    );
    await view.locator('[data-testid="result"]').waitFor();

    const progress = view.locator('[data-testid="progress"]');
    expect(await progress.getAttribute('data-percent')).toBe('100');
    expect(Number(await progress.getAttribute('data-updates'))).toBe(10); // one per product of the demo store
    expect(await view.locator('[data-testid="progress-text"]').textContent()).toMatch(/^10 \/ 10 · Counted /);
    expect(await page.locator('[data-testid="traffic-entry"][data-method="notifications/progress"]').count()).toBe(10);

    const logs = await page.locator('[data-testid="log-entry"]').allTextContents();
    expect(logs.some((line) => line.includes('Auditing 10 products'))).toBe(true);
    // lowStockBelow 4: the products with 3, 2, 0 and 0 units are reported as warnings.
    expect(await page.locator('[data-testid="log-entry"][data-level="warning"]').count()).toBe(4);

    const result = view.locator('[data-testid="result"]');
    expect(await result.getAttribute('data-is-error')).toBe('false');
    const structured = JSON.parse((await result.locator('[data-testid="structured-content"]').textContent()) ?? 'null');
    expect(structured).toEqual({
      products: 10,
      units: expect.any(Number),
      value: expect.any(Number),
      lowStock: ['p2', 'p4', 'p7', 'p9'],
    });

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'playground.png'), fullPage: true });
  });

  it("lists the notes upstream's tools under their prefix with a badge, and calls one with live progress", async () => {
    await page.click('[data-testid="tab-tools"]');
    const item = page.locator('[data-testid="tool-item"][data-name="notes__reindex_notes"]');
    expect(await item.getAttribute('data-upstream')).toBe('notes');
    expect(await item.locator('.badge-via').textContent()).toBe('via notes');
    // Local tools carry no badge, and the upstream's come after them, under one heading.
    expect(await page.locator('[data-testid="tool-item"][data-name="audit_inventory"] .badge-via').count()).toBe(0);
    expect(await page.locator('#tool-list [data-testid="upstream-group"]').allTextContents()).toEqual([
      'notes · mounted upstream',
      'roaster · mounted upstream',
    ]);
    const names = await page
      .locator('#tool-list [data-testid="tool-item"]')
      .evaluateAll((items) => items.map((node) => node.getAttribute('data-name')));
    expect(names.slice(-5)).toEqual([
      'notes__add_note',
      'notes__search_notes',
      'notes__reindex_notes',
      'roaster__roast_schedule',
      'roaster__plan_tasting',
    ]);
    expect(await page.textContent('#count-tools')).toBe(String(names.length));

    await item.click();
    const view = toolView('notes__reindex_notes');
    expect(await view.locator('[data-testid="via"]').textContent()).toContain('"notes"');
    await view.locator('[data-testid="field-delayMs"]').fill('50');
    await view.locator('[data-testid="call-tool"]').click();
    await view.locator('[data-testid="result"]').waitFor();
    const progress = view.locator('[data-testid="progress"]');
    expect(await progress.getAttribute('data-percent')).toBe('100');
    expect(Number(await progress.getAttribute('data-updates'))).toBe(2); // one per note, relayed from the upstream
    expect(await view.locator('[data-testid="progress-text"]').textContent()).toMatch(/^2 \/ 2 · Indexed /);
    const result = view.locator('[data-testid="result"]');
    expect(await result.getAttribute('data-is-error')).toBe('false');
    expect(JSON.parse((await result.locator('[data-testid="structured-content"]').textContent()) ?? 'null')).toEqual({
      indexed: 2,
    });
    expect(await page.locator('[data-testid="log-entry"]').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining('Reindexing 2 notes')]),
    );

    // Its resources are grouped and badged too.
    await page.click('[data-testid="tab-resources"]');
    expect(
      await page.locator('[data-testid="resource-item"][data-name="notes+notes://all"]').getAttribute('data-upstream'),
    ).toBe('notes');
    expect(
      await page
        .locator('[data-testid="template-item"][data-name="notes+notes://note/{id}"]')
        .getAttribute('data-upstream'),
    ).toBe('notes');
    expect(
      await page.locator('[data-testid="resource-item"][data-name="store://catalog"]').getAttribute('data-upstream'),
    ).toBeNull();
    await page.click('[data-testid="tab-tools"]');
  });

  it("lists the roaster's tools (a stdio upstream) in their own group, calls roast_schedule, and shows why plan_tasting cannot ask the playground", async () => {
    await page.click('[data-testid="tab-tools"]');
    const item = page.locator('[data-testid="tool-item"][data-name="roaster__roast_schedule"]');
    expect(await item.getAttribute('data-upstream')).toBe('roaster');
    expect(await item.locator('.badge-via').textContent()).toBe('via roaster');
    await item.click();
    const view = toolView('roaster__roast_schedule');
    expect(await view.locator('[data-testid="via"]').textContent()).toContain('"roaster"');
    await view.locator('[data-testid="field-coffee"]').fill('kenya');
    await view.locator('[data-testid="call-tool"]').click();
    const result = view.locator('[data-testid="result"]');
    await result.waitFor();
    expect(await result.getAttribute('data-is-error')).toBe('false');
    expect(JSON.parse((await result.locator('[data-testid="structured-content"]').textContent()) ?? 'null')).toEqual({
      roasts: [{ day: 'Friday', coffee: 'Kenya Nyeri', roast: 'light', kg: 5 }],
      totalKg: 5,
    });

    // The playground declares no elicitation capability: the gateway refuses the roaster's question at once, and the
    // tool's error result says so (it would ask an SDK client, tested in demo-roaster.test.ts).
    await page.click('[data-testid="tool-item"][data-name="roaster__plan_tasting"]');
    const tasting = toolView('roaster__plan_tasting');
    await tasting.locator('[data-testid="call-tool"]').click();
    const refused = tasting.locator('[data-testid="result"][data-is-error="true"]');
    await refused.waitFor();
    expect(await refused.textContent()).toContain('your client cannot answer them');
    expect(await refused.textContent()).toContain("did not declare the 'elicitation' capability");

    await page.click('[data-testid="tab-resources"]');
    expect(
      await page
        .locator('[data-testid="resource-item"][data-name="roaster+roaster://green-stock"]')
        .getAttribute('data-upstream'),
    ).toBe('roaster');
    await page.click('[data-testid="tab-tools"]');
  });

  it('shows a tool error result (isError) as an error', async () => {
    await page.click('[data-testid="tool-item"][data-name="get_product"]');
    const view = toolView('get_product');
    await view.locator('[data-testid="field-id"]').fill('nope');
    await view.locator('[data-testid="call-tool"]').click();
    const result = view.locator('[data-testid="result"][data-is-error="true"]');
    await result.waitFor();
    expect(await result.getAttribute('role')).toBe('alert');
    expect(await result.textContent()).toMatch(/404/);
  });

  it('shows the price of the paid tool, pays with a test payment, and shows the result and its settlement', async () => {
    await page.click('[data-testid="tool-item"][data-name="premium_stock_forecast"]');
    const view = toolView('premium_stock_forecast');
    await view.locator('[data-testid="field-days"]').fill('10');
    await view.locator('[data-testid="call-tool"]').click();

    // The first call carries no payment: the x402 payment-required result, with the price and the retry button.
    await view.locator('[data-testid="payment-required"]').waitFor();
    expect(await view.locator('[data-testid="result"]').getAttribute('data-is-error')).toBe('true');
    expect(await view.locator('[data-testid="payment-price"]').textContent()).toBe('0.01 USDC on eip155:84532');

    await view.locator('[data-testid="pay-and-retry"]').click();
    const settlement = view.locator('[data-testid="settlement"]');
    await settlement.waitFor();
    expect(await settlement.getAttribute('data-success')).toBe('true');
    expect(await settlement.locator('h4').textContent()).toMatch(
      /^Paid: transaction 0xtest-[0-9a-f]{16} on eip155:84532$/,
    );
    const result = view.locator('[data-testid="result"]');
    expect(await result.getAttribute('data-is-error')).toBe('false');
    expect(await view.locator('[data-testid="payment-required"]').count()).toBe(0);
    const structured = JSON.parse((await result.locator('[data-testid="structured-content"]').textContent()) ?? 'null');
    expect(structured).toEqual({
      days: 10,
      reorder: expect.arrayContaining([expect.objectContaining({ id: 'p2', reorder: 2 })]),
    });

    // The retry sent the package's testPayment() of the first accepted price (the demo server made it) in
    // _meta["x402/payment"]: a fresh nonce, "signed" with test: and a digest of what it authorizes.
    const sent = JSON.parse(
      (await page
        .locator('[data-testid="traffic-entry"][data-direction="out"][data-method="tools/call"] pre.json')
        .last()
        .textContent()) ?? 'null',
    );
    expect(sent.params._meta['x402/payment']).toEqual({
      x402Version: 2,
      accepted: expect.objectContaining({ scheme: 'exact', network: 'eip155:84532', amount: '10000' }),
      payload: {
        signature: expect.stringMatching(/^test:[0-9a-f]{64}$/),
        authorization: expect.objectContaining({ nonce: expect.stringMatching(/^0x[0-9a-f]{64}$/) }),
      },
    });
  });

  it('reads store://catalog, and a product through its template with completions', async () => {
    await page.click('[data-testid="tab-resources"]');
    await page.click('[data-testid="resource-item"][data-name="store://catalog"]');
    const contents = page.locator('[data-testid="resource-view"] [data-testid="resource-contents"]');
    await contents.waitFor();
    expect(await contents.textContent()).toContain('Espresso beans, 1 kg');

    await page.click('[data-testid="template-item"][data-name="product://{id}"]');
    const id = page.locator('[data-testid="template-view"] [data-testid="field-id"]');
    await id.fill('p1');
    // completion/complete suggests every id starting with p1: p1 and p10.
    await page.waitForSelector('[data-testid="template-view"] [data-testid="field-id"][data-suggestions="2"]');
    await id.fill('p3');
    expect(await page.textContent('[data-testid="expanded-uri"]')).toBe('product://p3');
    await page.click('[data-testid="read-template"]');
    const product = page.locator('[data-testid="template-view"] [data-testid="resource-contents"]');
    await product.waitFor();
    expect(await product.textContent()).toContain('Burr grinder');
  });

  it('gets the recommend prompt, after showing the error for its missing argument', async () => {
    await page.click('[data-testid="tab-prompts"]');
    await page.click('[data-testid="prompt-item"][data-name="recommend"]');
    await page.click('[data-testid="get-prompt"]');
    const error = page.locator('[data-testid="prompt-result"] [data-testid="error"][data-code="-32602"]');
    await error.waitFor();
    expect(await error.textContent()).toContain('budget');

    await page.fill('[data-testid="prompt-view"] [data-testid="field-budget"]', '120');
    await page.fill('[data-testid="prompt-view"] [data-testid="field-style"]', 'espresso');
    await page.click('[data-testid="get-prompt"]');
    const message = page.locator('[data-testid="prompt-messages"] [data-testid="prompt-message"]');
    await message.first().waitFor();
    expect(await message.count()).toBe(1);
    expect(await message.textContent()).toContain('for a budget of 120 euros and espresso brewing');
  });

  it('shows the 401 and its WWW-Authenticate challenge for a bad token', async () => {
    const other = await context.newPage();
    other.on('pageerror', (error) => pageErrors.push(error.message));
    // The link connects on load, and its failure shows as a click's would.
    await other.goto(`${origin}/playground/#token=not-the-token`);
    const error = other.locator('[data-testid="connection-error"] [data-testid="error"][data-status="401"]');
    await error.waitFor();
    const text = (await error.textContent()) ?? '';
    expect(text).toContain('Unauthorized (HTTP 401)');
    expect(text).toContain('WWW-Authenticate: Bearer');
    expect(text).toContain('invalid_token');
    expect(await other.getAttribute('[data-testid="status"]', 'data-state')).toBe('error');
    expect(await other.locator('[data-testid="tool-item"]').count()).toBe(0);
    await other.close();
  });

  it('waits for Connect when the link carries no token, then connects with the token typed in', async () => {
    const other = await context.newPage();
    other.on('pageerror', (error) => pageErrors.push(error.message));
    await other.goto(`${origin}/playground/`);
    // Module scripts run before the load event goto waits for: an auto-connect would have begun by now.
    expect(await other.getAttribute('[data-testid="status"]', 'data-state')).toBe('disconnected');
    expect(await other.locator('[data-testid="traffic-entry"]').count()).toBe(0);

    await other.fill('#token', TOKEN);
    await other.click('[data-testid="connect"]');
    await other.waitForSelector('[data-testid="status"][data-state="connected"]');
    await other.waitForSelector('[data-testid="tool-item"][data-name="audit_inventory"]');
    await other.close();
  });

  it('threw no uncaught errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
