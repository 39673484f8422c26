// A free TCP port on 127.0.0.1 for servers a test starts as separate processes (port 0 cannot be passed to them).

import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A port nothing listens on right now: the one the OS hands out for port 0. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
