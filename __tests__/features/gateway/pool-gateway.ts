// The per-principal process pool's fixture: a gateway over fixtures/env-server.js, callers by subject, and what the fixture logs.

import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { UpstreamHandle, UpstreamOptions } from '../../../lib';
import { closeAfterEach, closeGatewaysAfterEach, serveGateway, text } from './upstreams';

export const FIXTURE = join(__dirname, 'fixtures', 'env-server.js');
export const SUBJECTS = Array.from({ length: 50 }, (_, index) => `user-${index}`);
export const TOKENS = [...SUBJECTS, 'alice', 'bob'].map((subject) => ({ token: `${subject}-token`, subject }));

const clients: Client[] = [];
/** After each test: closes the clients {@link callerClient} opened, the gateways and the upstreams. */
export function closePoolAfterEach(): void {
  closeGatewaysAfterEach();
  closeAfterEach();
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
  });
}

export async function callerClient(url: string, subject?: string): Promise<Client> {
  const client = new Client({ name: subject ?? 'anonymous', version: '1.0.0' });
  const headers: Record<string, string> = subject === undefined ? {} : { Authorization: `Bearer ${subject}-token` };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

/** A scratch directory: the fixture's start log and the files `hold` waits for. */
export function scratch(): string {
  return mkdtempSync(join(tmpdir(), 'process-pool-'));
}

/** The pids the fixture logged at each start. */
export function starts(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

/** `whoami` as `subject`: the TOKEN its process was given, and its pid. */
export async function whoami(client: Client): Promise<{ token: string; pid: number }> {
  const [token, pid] = text(await client.callTool({ name: 'env__whoami', arguments: {} }))!.split(' ');
  return { token: token!, pid: Number(pid) };
}

export async function poolGateway(
  options: Partial<UpstreamOptions>,
  auth = true,
): Promise<{ url: string; handle: UpstreamHandle; startsFile: string; dir: string }> {
  const dir = scratch();
  const startsFile = join(dir, 'starts');
  const { url, handles } = await serveGateway(auth ? { auth: { tokens: TOKENS } } : {}, (mcp) => [
    mcp.upstream({
      prefix: 'env',
      command: process.execPath,
      args: [FIXTURE, startsFile],
      processes: 'per-principal',
      start: 'mounted',
      env: (ctx) => ({ TOKEN: `secret-of-${ctx?.auth?.subject ?? 'lister'}` }),
      ...options,
    }),
  ]);
  return { url, handle: handles[0]!, startsFile, dir };
}
