// docs/apps.md's app, page and all, in a real host: its stock-app.ts server (run from this repository's lib) and its
// stock.html, rendered by the playground in headless Chromium. The page's App SDK comes from unpkg in the document;
// here that URL is answered with the installed @modelcontextprotocol/ext-apps file of the same path (no network).

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Frame, Page } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startSandbox, type Sandbox } from '../../demo/apps/sandbox';
import { createDemo, type Demo } from '../../demo/server';
import { endGroup, spawnGroup } from '../helpers/child';
import { launchChromium, newPage, serveDemo } from '../helpers/chromium';
import { within } from '../helpers/events';
import { freePort } from '../helpers/ports';
import { docExamples } from '../package/doc-examples';

jest.setTimeout(60_000);

const ROOT = path.join(__dirname, '..', '..');
const EXT_APPS = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'ext-apps');
/** Inside the repository, so the example's `express` resolves from its node_modules. */
const WORK = path.join(ROOT, 'node_modules', '.cache', `docs-app-e2e-${process.pid}`);

const exampleCode = (name: string): string => {
  const code = docExamples().find((example) => example.name === name)?.code;
  if (code === undefined) throw new Error(`docs have no example ${name}`);
  return code;
};

describe("docs/apps.md's stock app in the playground (headless Chromium)", () => {
  let sandbox: Sandbox;
  let demo: Demo;
  let served: Awaited<ReturnType<typeof serveDemo>>;
  let server: ReturnType<typeof spawnGroup> | undefined;
  let endpoint: string;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    mkdirSync(WORK, { recursive: true });
    // The document's server, with the package's name pointing at this repository's source; its page beside it.
    const source = exampleCode('stock-app.ts').replace("from 'express-mcp-router'", `from '${ROOT}/lib/index.ts'`);
    writeFileSync(path.join(WORK, 'stock-app.ts'), source);
    writeFileSync(path.join(WORK, 'stock.html'), exampleCode('stock.html'));
    const port = await freePort();
    endpoint = `http://127.0.0.1:${port}/mcp`;
    server = spawnGroup(
      process.execPath,
      ['-r', path.join(__dirname, '..', 'package', 'report-listening.js'), '--import', 'tsx', 'stock-app.ts'],
      { cwd: WORK, env: { PATH: process.env.PATH, PORT: String(port) }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let output = '';
    await within(
      new Promise<void>((resolve) =>
        server!.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
          output += chunk;
          if (output.includes('LISTENING\n')) resolve();
        }),
      ),
      'stock-app.ts to listen',
      20_000,
    );
    sandbox = await startSandbox('127.0.0.1');
    demo = createDemo({ token: 'docs-app-e2e-token-4b1c9', sandboxUrl: sandbox.url }); // only the host: its own endpoint is unused
    served = await serveDemo(demo);
    browser = await launchChromium();
    let context;
    ({ context, page } = await newPage(browser, pageErrors, { height: 1000, timeoutMs: 20_000 }));
    // unpkg's copy of the package is the installed one: the same path under the package.
    await context.route('https://unpkg.com/**', (route) => {
      const file = /^https:\/\/unpkg\.com\/@modelcontextprotocol\/ext-apps@2\/(.+)$/.exec(route.request().url())?.[1];
      if (file === undefined) return route.fulfill({ status: 404 });
      return route.fulfill({
        path: path.join(EXT_APPS, file),
        contentType: 'text/javascript',
        headers: { 'access-control-allow-origin': '*' },
      });
    });
  });

  afterAll(async () => {
    await browser?.close();
    await served?.close();
    await sandbox?.close();
    await endGroup(server);
    rmSync(WORK, { recursive: true, force: true });
  });

  async function viewFrame(): Promise<Frame> {
    const outer = await page.locator('[data-testid="app-frame"]').elementHandle();
    const proxy = await outer!.contentFrame();
    const inner = await proxy!.waitForSelector('#view[srcdoc]');
    return (await inner.contentFrame())!;
  }

  it("shows show_stock's result in the page, and the page's button calls the app-only restock through the host", async () => {
    await page.goto(`${served.origin}/playground/#endpoint=${encodeURIComponent(endpoint)}`);
    await page.evaluate("document.getElementById('connect-form').requestSubmit()");
    await page.click('[data-testid="tool-item"][data-name="show_stock"]');
    const names = await page
      .locator('[data-testid="tool-item"]')
      .evaluateAll((items) => items.map((item) => item.getAttribute('data-name')));
    expect(names).toEqual(['show_stock']);
    const view = page.locator('[data-testid="tool-view"][data-tool="show_stock"]');
    await view.locator('[data-testid="field-item"]').fill('beans');
    await view.locator('[data-testid="call-tool"]').click();
    await view.locator('[data-testid="app-view"][data-state="ready"]').waitFor();

    const frame = await viewFrame();
    // Selectors, not evaluated strings: the view's CSP (no 'unsafe-eval') refuses those.
    await frame.waitForSelector('#units:text-is("beans: 12 units")');
    await frame.click('#restock');
    await frame.waitForSelector('#units:text-is("beans: 22 units")');
    expect(pageErrors).toEqual([]);
  });

  it('the server really ran the restock: the next show_stock says 22', async () => {
    const client = new Client({ name: 'docs-app-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint)));
    try {
      const result = await client.callTool({ name: 'show_stock', arguments: { item: 'beans' } });
      expect(result.structuredContent).toEqual({ item: 'beans', units: 22 });
    } finally {
      await client.close();
    }
  });
});
