// The MCP Apps sandbox proxy's own server: the playground must render a view through a page on an origin other than
// its own (SEP-1865 "Sandbox proxy"), so the demo serves it on a second listener (another port, so another origin).

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import express from 'express';
import { cspOfQuery, viewPolicy } from './sandbox-csp';

/** The running sandbox: the page's URL (the playground appends `?host=<its origin>&csp=<the view's csp>`) and how to stop it. */
export interface Sandbox {
  readonly url: string;
  close(): Promise<void>;
}

const PAGE = path.join(__dirname, 'sandbox');

/**
 * The sandbox app: demo/apps/sandbox/ (index.html, sandbox.js), and nothing else. The page is sent under the CSP
 * built from the `csp` the host put in its URL (the view's `_meta.ui.csp`): the view, an `srcdoc` inside the page and
 * of the page's origin, inherits it, and whatever the view does through the page (`parent.fetch`, an element added
 * to the page) is held to it too. A view cannot change it: it is fixed when the page loads.
 */
export function createSandboxApp(): express.Express {
  const app = express();
  app.get(['/', '/index.html'], (req, res) => {
    res.set('Content-Security-Policy', viewPolicy(cspOfQuery(req.query.csp)));
    res.sendFile(path.join(PAGE, 'index.html'));
  });
  app.use(express.static(PAGE, { index: false }));
  app.use((_req, res) => res.status(404).json({ error: 'Not found' }));
  return app;
}

/**
 * Starts the sandbox on `host`, on `port` (0, the default, lets the system pick).
 *
 * @example
 * ```ts
 * const sandbox = await startSandbox('127.0.0.1');
 * createDemo({ token, sandboxUrl: sandbox.url });
 * ```
 */
export function startSandbox(host = '127.0.0.1', port = 0): Promise<Sandbox> {
  return new Promise((resolve, reject) => {
    const server: Server = createServer(createSandboxApp());
    server.once('error', reject);
    server.listen(port, host, () => {
      const where = `${host.includes(':') ? `[${host}]` : host}:${(server.address() as AddressInfo).port}`;
      resolve({
        url: `http://${where}/`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
