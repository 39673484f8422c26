// Servers (u2) and (u3) of scenario `stdio` (issue 31): supergateway 4 publishing the stdio `add` server over Streamable HTTP.
// argv[2] picks its mode: `stateful` (`--stateful`: one child per session) or `stateless` (its default: one per request).

import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { answerHarness } from './control';
import { STDIO_SERVER } from './stdio-server-path';

const MODES = { stateful: ['--stateful'], stateless: [] } as const;
const mode = process.argv[2];
if (mode !== 'stateful' && mode !== 'stateless')
  throw new Error(
    `bench/servers/supergateway.ts: mode must be ${Object.keys(MODES).join(' or ')}, got ${String(mode)}`,
  );

/** The readiness path, answered `ok` by supergateway once it listens (its `--healthEndpoint`). */
const HEALTH_PATH = '/healthz';

/** A free loopback port: supergateway takes a port number, not 0. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        address !== null && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** Resolves once supergateway answers its health endpoint; the harness gives up if the process exits first. */
async function untilListening(port: number): Promise<void> {
  for (;;) {
    const answered = await fetch(`http://127.0.0.1:${port}${HEALTH_PATH}`).then(
      (reply) => reply.ok,
      () => false,
    );
    if (answered) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function main(): Promise<void> {
  const port = await freePort();
  const bin = path.join(path.dirname(require.resolve('supergateway/package.json')), 'dist', 'index.js');
  // Its `--stdio` is a shell command line. `--logLevel none`: at its default (`info`) it prints every message both
  // ways, a cost of its defaults but not of relaying, and the router logs nothing per message either.
  const args = [
    bin,
    '--stdio',
    `"${process.execPath}" "${STDIO_SERVER}"`,
    '--outputTransport',
    'streamableHttp',
    '--port',
    String(port),
    '--logLevel',
    'none',
    '--healthEndpoint',
    HEALTH_PATH,
    ...MODES[mode as keyof typeof MODES],
  ];
  const gateway = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  gateway.once('exit', (code, signal) => {
    process.stderr.write(`supergateway exited (code ${String(code)}, signal ${String(signal)})\n`);
    process.exit(1);
  });
  // It kills its children on SIGTERM (its onSignals cleanup); this child ends when the harness disconnects.
  process.once('exit', () => gateway.kill('SIGTERM'));
  await untilListening(port);
  // supergateway is the gateway: its CPU is the server's own, its children's (the stdio servers) the upstreams'.
  answerHarness(port, { gatewayPid: gateway.pid });
}

void main();
