// Ports on 127.0.0.1: a free one for servers a test starts as separate processes, and an app listening on one in this process.

import { createServer } from 'node:net';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

/** A port nothing listens on right now: the one the OS hands out for port 0. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** An app listening on 127.0.0.1: its server and port, and how to close it (open connections too, streams included). */
export interface Listening {
  readonly server: Server;
  readonly port: number;
  close(): Promise<void>;
}

/** Starts `app` on a port of 127.0.0.1: `port`, or one the OS picks. */
export async function listenLocally(app: Express, port = 0): Promise<Listening> {
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(port, '127.0.0.1', () => resolve(listening));
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
