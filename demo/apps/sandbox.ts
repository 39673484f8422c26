// The MCP Apps sandbox proxy's own server: the playground must render a view through a page on an origin other than
// its own (SEP-1865 "Sandbox proxy"), so the demo serves it on a second listener (another port, so another origin).

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import express from 'express';

/** The running sandbox: the page's URL (the playground appends `?host=<its origin>`) and how to stop it. */
export interface Sandbox {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The sandbox app: demo/apps/sandbox/ (index.html, sandbox.js), and nothing else. Its page sends no CSP of its own:
 * the view's document is an `srcdoc` inside it, which would inherit that policy on top of the one built from
 * the view's resource, and the view must get exactly that one.
 */
export function createSandboxApp(): express.Express {
  const app = express();
  app.use(express.static(path.join(__dirname, 'sandbox'), { index: 'index.html' }));
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
