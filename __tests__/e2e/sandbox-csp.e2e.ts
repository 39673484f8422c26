// The demo's sandbox proxy (SEP-1865 "Sandbox proxy") in headless Chromium, driven by a bare host page: the view's
// CSP (the sandbox page's own, which the view's srcdoc inherits) governs the whole view, even one that puts a script
// before its <head> or hides a "<head>" in a comment, and whatever the view does through the page it shares an origin
// with. The view tries to reach a server it did not declare; the server counts hits.

import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import type { Browser } from 'playwright-core';
import { startSandbox, type Sandbox } from '../../demo/apps/sandbox';
import { launchChromium, newPage } from '../helpers/chromium';

jest.setTimeout(60_000);

let sandbox: Sandbox;
let browser: Browser;
let server: Server;
let origin: string;
let hits = 0;

beforeAll(async () => {
  sandbox = await startSandbox('127.0.0.1');
  const host = express();
  // What a view must not reach: any request here is a CSP escape.
  host.get('/exfiltrate', (_req, res) => {
    hits += 1;
    res.set('Access-Control-Allow-Origin', '*').send('ok');
  });
  // A bare host: embeds the sandbox, sends it the view once it is ready, and keeps what the view sends back.
  host.get('/host', (req, res) => {
    // Inside the host page's own <script>: "<" escaped, so the view's "</script>" does not end it.
    const view = JSON.stringify(String(req.query.view)).replace(/</g, '\\u003c');
    const frame = new URL(sandbox.url);
    frame.searchParams.set('host', origin);
    res.type('html').send(`<!doctype html><iframe id="s" src="${frame.href}"></iframe><script>
      window.results = [];
      addEventListener('message', (event) => {
        if (event.data?.method === 'ui/notifications/sandbox-proxy-ready')
          event.source.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-resource-ready',
            params: { html: ${view} } }, ${JSON.stringify(frame.origin)});
        else window.results.push(event.data);
      });</script>`);
  });
  server = await new Promise((resolve) => {
    const listening = host.listen(0, '127.0.0.1', () => resolve(listening));
  });
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await sandbox?.close();
});

/** A view whose first script reports, through the host, whether it could fetch the undeclared server. */
function probe(before: string, after: string): string {
  const script = `<script>fetch(${JSON.stringify(`${origin}/exfiltrate`)}).then(() => 'reached', () => 'blocked')
    .then((outcome) => parent.postMessage({ jsonrpc: '2.0', method: 'test/outcome', params: { outcome } }, '*'))</script>`;
  return `${before}${script}${after}`;
}

it.each([
  ['a script before <head>', '<!doctype html><html>', '<head><title>v</title></head><body></body></html>'],
  ['a "<head>" in a comment before the script', '<!doctype html><!-- <head> -->', '<body></body>'],
  ['no doctype, no head', '', '<p>view</p>'],
])('applies the view CSP before any of its scripts: %s', async (_label, before, after) => {
  const view = probe(before, after); // built here: the server's origin is known once beforeAll ran
  const { page } = await newPage(browser, []);
  const hitsBefore = hits;
  await page.goto(`${origin}/host?view=${encodeURIComponent(view)}`);
  // A string: this file is compiled without the DOM's types.
  const outcome = await page.waitForFunction(
    "window.results?.find((message) => message.method === 'test/outcome')?.params?.outcome",
  );
  expect(await outcome.jsonValue()).toBe('blocked');
  expect(hits).toBe(hitsBefore);
  await page.context().close();
});

it('holds a malicious view to its CSP through the page it sits in, and keeps it from the host page', async () => {
  const { page } = await newPage(browser, []);
  const hitsBefore = hits;
  const target = `${origin}/exfiltrate`;
  // The view shares the sandbox page's origin (allow-same-origin): it may use the page's fetch and DOM, whose CSP is
  // the view's own; the host page is another origin.
  const view = `<!doctype html><script>
    const tries = {
      direct: () => fetch('${target}', { mode: 'no-cors' }).then(() => 'sent'),
      viaPageFetch: () => parent.fetch('${target}', { mode: 'no-cors' }).then(() => 'sent'),
      viaPageImage: () => new Promise((resolve) => {
        const image = parent.document.createElement('img');
        image.onload = image.onerror = () => resolve('settled');
        image.src = '${target}';
        parent.document.body.append(image);
      }),
      viaPageForm: () => { const form = parent.document.createElement('form'); form.method = 'post';
        form.action = '${target}'; parent.document.body.append(form); form.submit(); return 'submitted'; },
      hostDom: () => String(parent.parent.document.title),
    };
    (async () => {
      const got = {};
      for (const [name, run] of Object.entries(tries)) {
        try { got[name] = await run(); } catch (error) { got[name] = 'refused: ' + error.name; }
      }
      parent.postMessage({ jsonrpc: '2.0', method: 'test/outcome', params: { outcome: got } }, '*');
    })();</script>`;
  await page.goto(`${origin}/host?view=${encodeURIComponent(view)}`);
  const report = await page.waitForFunction(
    "window.results?.find((message) => message.method === 'test/outcome')?.params?.outcome",
  );
  expect(await report.jsonValue()).toMatchObject({
    direct: 'refused: TypeError',
    viaPageFetch: 'refused: TypeError',
    viaPageImage: 'settled', // the request never leaves: counted below
    hostDom: 'refused: SecurityError',
  });
  expect(hits).toBe(hitsBefore);
  await page.context().close();
});
