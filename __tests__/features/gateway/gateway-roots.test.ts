// roots/list asked during a call: answered from the upstream's `roots` option on a connection every caller shares (a
// 'shared' stdio process, a 2025 HTTP session), relayed to the caller where the connection is its own ('per-principal'
// processes, 2026 requests). A caller answering file:/// must not widen a shared process's allowed directories.

import { join } from 'node:path';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema, ListRootsResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import type { McpRouterOptions, UpstreamOptions } from '../../../lib';
import {
  closeAfterEach,
  closeGatewaysAfterEach,
  routerCallUpstream,
  sdkV1CallUpstream,
  serveGateway,
  text,
} from './upstreams';

closeGatewaysAfterEach();
closeAfterEach();
jest.setTimeout(20_000);

const FIXTURE = join(__dirname, 'fixtures', 'roots-server.js');
/** The operator's roots for the upstream. */
const CONFIGURED = [{ uri: 'file:///srv/projects', name: 'projects' }];
/** What a hostile caller answers: the whole disk. */
const EVERYTHING = [{ uri: 'file:///', name: 'everything' }];
const AUTH: Partial<McpRouterOptions> = {
  auth: {
    tokens: [
      { token: 'alice-token', subject: 'alice' },
      { token: 'bob-token', subject: 'bob' },
    ],
  },
};

const clients: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close().catch(() => undefined)));
});

/** A caller of either era whose client declares roots and answers `roots/list` with `roots`, recording each ask. */
async function caller(
  url: string,
  era: '2025' | '2026',
  roots: readonly { uri: string; name?: string }[],
  asked: string[],
  token?: string,
): Promise<{ call(name: string): Promise<unknown> }> {
  const requestInit = token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } };
  const answer = { roots: roots.map((root) => ({ ...root })) };
  if (era === '2025') {
    const client = new V1Client({ name: 'v1-roots', version: '1.0.0' }, { capabilities: { roots: {} } });
    client.setRequestHandler(ListRootsRequestSchema, async () => (asked.push(token ?? 'caller'), answer));
    await client.connect(new V1Transport(new URL(url), { requestInit }));
    clients.push(client);
    return { call: (name) => client.callTool({ name, arguments: {} }) };
  }
  const client = new V2Client(
    { name: 'v2-roots', version: '2.0.0' },
    { capabilities: { roots: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  client.setRequestHandler('roots/list', async () => (asked.push(token ?? 'caller'), answer));
  await client.connect(new V2Transport(new URL(url), { requestInit }));
  clients.push(client);
  return { call: (name) => client.callTool({ name, arguments: {} }) };
}

const seen = (result: unknown): unknown => JSON.parse(text(result)!);

function stdio(options: Partial<UpstreamOptions>): UpstreamOptions {
  return { prefix: 'fs', command: process.execPath, args: [FIXTURE], roots: CONFIGURED, ...options } as UpstreamOptions;
}

describe.each(['2025', '2026'] as const)('a caller of the %s era', (era) => {
  it("cannot set a 'shared' stdio process's roots: the upstream gets the roots option, the caller is not asked", async () => {
    const { url } = await serveGateway({}, (mcp) => [mcp.upstream(stdio({}))]);
    const asked: string[] = [];
    const hostile = await caller(url, era, EVERYTHING, asked);
    expect(seen(await hostile.call('fs__roots'))).toEqual(CONFIGURED);
    expect(asked).toEqual([]);
    // What every other caller of the process is allowed is still the operator's.
    const other = await caller(url, era, [], asked);
    expect(seen(await other.call('fs__allowed'))).toEqual(CONFIGURED);
  });

  it("is asked where the process is its own ('per-principal'): its roots reach its process only", async () => {
    const { url } = await serveGateway(AUTH, (mcp) => [
      mcp.upstream(stdio({ processes: 'per-principal', start: 'mounted' })),
    ]);
    const asked: string[] = [];
    const alice = await caller(url, era, [{ uri: 'file:///home/alice' }], asked, 'alice-token');
    expect(seen(await alice.call('fs__roots'))).toEqual([{ uri: 'file:///home/alice' }]);
    expect(asked).toEqual(['alice-token']);
    const bob = await caller(url, era, [], asked, 'bob-token');
    expect(seen(await bob.call('fs__allowed'))).toEqual([]);
  });

  it('cannot set the roots of a 2025 HTTP upstream, whose one session serves every caller', async () => {
    const upstream = await sdkV1CallUpstream((server) => {
      server.registerTool('roots', { description: 'Asks roots/list' }, async (extra) => {
        const { roots } = await extra.sendRequest({ method: 'roots/list' }, ListRootsResultSchema);
        return { content: [{ type: 'text', text: JSON.stringify(roots) }] };
      });
    });
    const { url } = await serveGateway({}, (mcp) => [
      mcp.upstream({ prefix: 'fs', url: upstream.url, roots: CONFIGURED }),
    ]);
    const asked: string[] = [];
    const hostile = await caller(url, era, EVERYTHING, asked);
    expect(seen(await hostile.call('fs__roots'))).toEqual(CONFIGURED);
    expect(asked).toEqual([]);
  });

  it("is asked by a 2026 HTTP upstream, whose answers come with that caller's request only", async () => {
    const upstream = await routerCallUpstream({}, (mcp) => {
      mcp.tool({
        name: 'roots',
        description: 'Asks roots/list',
        handler: async (_args, ctx) => JSON.stringify((await ctx.listRoots()).roots),
      });
    });
    const { url } = await serveGateway({}, (mcp) => [
      mcp.upstream({ prefix: 'fs', url: upstream.url, roots: CONFIGURED }),
    ]);
    const asked: string[] = [];
    const own = await caller(url, era, [{ uri: 'file:///home/carol' }], asked);
    expect(seen(await own.call('fs__roots'))).toEqual([{ uri: 'file:///home/carol' }]);
    expect(asked).toEqual(['caller']);
  });
});
