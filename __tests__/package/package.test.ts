// The published package: `npm pack` gives a tarball that a fresh Express 5 TypeScript app and a fresh Express 4
// CommonJS app, with only express, @types/express and typescript beside it, can require, compile the runnable
// examples of README.md and docs/ against with skipLibCheck off, and run them so that the official SDK client gets
// what their documents promise.

import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { Client as SdkClient, type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  Client as ClientV2,
  ClientCredentialsProvider as ClientCredentialsV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { MemoryOAuthProvider } from '../helpers/oauth-client';
import { followSignIn } from '../helpers/sign-in-flow';
import { followFlow, type PageAction } from '../helpers/browser-driver';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import { rejection } from '../helpers/errors';
import type { PaymentRequired } from '../../lib/x402';
import { createFreshApp, packInto, ROOT, tsc, type FreshAppSpec } from './fresh-app';
import { docExamples, isProgram, startExample, type DocExample, type RunningExample } from './doc-examples';

// Packing, two compilations (the Express 5 app's reads the SDK's types too: 40-50 s on two cores under load) and a
// dozen child processes; generous for a loaded machine.
jest.setTimeout(120_000);

const TOKEN = 'doc-example-token-7f3a';
const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });
const text = (result: Record<string, unknown>): string =>
  (result.content as Array<{ text?: string }>).map((block) => block.text ?? '').join('');
const call = (client: Client, name: string, args: Record<string, unknown> = {}) =>
  client.callTool({ name, arguments: args }) as Promise<Record<string, unknown>>;

/**
 * What the SDK client must get from each server example marked `(runs as is)` in README.md or docs/ (the document
 * named beside it), or what a client example marked `(runs as is against <server>)` must do and print when run
 * against that server (given here): one entry per example, no more.
 */
const CHECKS: Record<string, (example: RunningExample) => Promise<void>> = {
  'token-exchange.ts': async (example) => {
    const client = await example.connect(bearer(example.token));
    // docs/gateway.md: the upstream sees the caller (through a token exchanged for it), never the caller's own token.
    expect((await call(client, 'crm__whoami')).structuredContent).toEqual({ subject: 'ops' });
  },
  'hello.ts': async (example) => {
    const client = await example.connect();
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['add']);
    expect((await call(client, 'add', { a: 2, b: 40 })).structuredContent).toEqual({ sum: 42 });
    expect((await client.readResource({ uri: 'docs://readme' })).contents).toEqual([
      { uri: 'docs://readme', mimeType: 'text/markdown', text: '# Inventory' },
    ]);
  },
  'existing-api.ts': async (example) => {
    const client = await example.connect(bearer(example.token));
    const tools = (await client.listTools()).tools;
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'create_user',
      'get_api_users_by_id',
      'get_orders',
      'get_reports_by_id',
      'sales_total',
    ]);
    // A route of an express.Router mounted at /api: the tool learned the full path and its param.
    expect(tools.find((tool) => tool.name === 'get_api_users_by_id')?.inputSchema).toEqual({
      type: 'object',
      properties: { id: { type: 'string' } },
      required: ['id'],
    });
    expect(await call(client, 'get_api_users_by_id', { id: '1' })).toMatchObject({
      structuredContent: { id: '1', name: 'Ada' },
    });
    const missing = await call(client, 'get_api_users_by_id', { id: '9' });
    expect(missing).toMatchObject({ isError: true });
    expect(text(missing)).toBe('HTTP 404 Not Found: {"error":"no user 9"}');
    expect(await call(client, 'create_user', { name: 'Bo' })).toMatchObject({
      structuredContent: { id: '2', name: 'Bo' },
    });
    const open = await call(client, 'get_orders', { status: 'open' });
    expect(text(open)).toBe('[{"id":"o1","status":"open"}]');
    // docs/existing-apps.md: JSON that is not an object becomes structuredContent `{ "result": <value> }` plus its text.
    expect(open.structuredContent).toEqual({ result: [{ id: 'o1', status: 'open' }] });
    expect((await call(client, 'sales_total')).structuredContent).toEqual({ total: 1234.5 });
    expect((await call(client, 'get_reports_by_id', { id: 'r9' })).structuredContent).toEqual({ id: 'r9' });

    const challenges: Array<string | null> = [];
    const recording: FetchLike = async (url, init) => {
      const res = await fetch(url, init);
      challenges.push(res.headers.get('www-authenticate'));
      return res;
    };
    const unauthorized = await rejection(example.connect({}, recording));
    expect(unauthorized).toMatchObject({ code: 401 });
    const metadataUrl = `${example.origin}/mcp/.well-known/oauth-protected-resource`;
    expect(challenges[0]).toBe(`Bearer resource_metadata="${metadataUrl}"`);
    const metadata = await fetch(metadataUrl);
    expect(metadata.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await metadata.json()).toMatchObject({ resource: `${example.origin}/mcp` });
  },
  'oauth-client.mts': async (server) => {
    // docs/security.md's client (docs/examples/oauth-client.mts) against its sign-in.ts: the test is the browser, at
    // the page it prints: the example's login page as ada, then the consent page, then back to its redirect URI.
    const client = server.runClient('oauth-client.mts');
    const [, signInAt] = await client.printed(/^Sign in at:\n {2}(http\S+)$/m);
    expect(signInAt).toMatch(new RegExp(`^${server.origin}/mcp/oauth/authorize\\?`));
    const end = await followFlow(signInAt as string, {
      onForm: (page): PageAction => {
        const fields: Record<string, string> =
          'csrf' in (page.forms[0]?.fields ?? {}) ? { decision: 'allow' } : { user: 'ada' };
        return { fields };
      },
    });
    expect(end.url.href).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/);
    expect(end.body).toBe('Signed in: you can close this tab.');
    const { code, stdout, stderr } = await client.ended();
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout.trim().split('\n').at(-1)).toBe('whoami: {"subject":"ada"}');
  },
  'sign-in.ts': async (example) => {
    // The SDK client signs in through the example's own login page and the router's consent page, then calls a tool as the user.
    const provider = new MemoryOAuthProvider('http://127.0.0.1:1/callback');
    const first = new StreamableHTTPClientTransport(new URL('/mcp', example.origin), { authProvider: provider });
    await expect(new SdkClient({ name: 'readme-sign-in', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    const end = await followSignIn((provider.authorizationUrls.at(-1) as URL).href, {
      stopAt: 'http://127.0.0.1:1/callback',
      login: (page) => (page.forms[0]?.fields.user === undefined ? undefined : { fields: { user: 'ada' } }),
    });
    await first.finishAuth(end.location.searchParams.get('code') as string);
    const client = new SdkClient({ name: 'readme-sign-in', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', example.origin), { authProvider: provider }),
    );
    expect((await call(client, 'whoami')).structuredContent).toEqual({ subject: 'ada' });
    await client.close();
  },
  'machine-client.ts': async (example) => {
    // As the document's client part does it: SDK v2's ClientCredentialsProvider, the secret being the example's MCP_TOKEN.
    const authProvider = new ClientCredentialsV2({
      clientId: 'nightly-report',
      clientSecret: example.token,
      expectedIssuer: `${example.origin}/mcp`,
    });
    const client = new ClientV2({ name: 'nightly-report', version: '1.0.0' });
    await client.connect(new TransportV2(new URL('/mcp', example.origin), { authProvider }));
    expect((await client.callTool({ name: 'whoami', arguments: {} })).structuredContent).toEqual({
      subject: 'nightly-report',
      scopes: ['reports:read'],
    });
    await client.close();
  },
  'auth.ts': async (example) => {
    const client = await example.connect(bearer(example.token));
    expect((await call(client, 'whoami')).structuredContent).toEqual({ subject: 'ops' });
    expect((await call(client, 'restock', { item: 'a', units: 2 })).structuredContent).toEqual({
      item: 'a',
      stock: 12,
    });
    expect(await rejection(example.connect(bearer('not-the-token')))).toMatchObject({ code: 401 });
  },
  'stock-app.ts': async (example) => {
    // docs/apps.md: the app's page (stock.html, the document's other example) as ui://shop/stock, linked from show_stock.
    const page = examples.find(({ name }) => name === 'stock.html')?.code;
    const client = await example.connect();
    const tools = (await client.listTools()).tools;
    expect(tools.map((tool) => [tool.name, tool._meta?.ui])).toEqual([
      ['show_stock', { resourceUri: 'ui://shop/stock' }],
    ]);
    expect((await client.listResources()).resources).toEqual([
      expect.objectContaining({ uri: 'ui://shop/stock', title: 'Stock', mimeType: 'text/html;profile=mcp-app' }),
    ]);
    expect((await client.readResource({ uri: 'ui://shop/stock' })).contents).toEqual([
      expect.objectContaining({
        uri: 'ui://shop/stock',
        mimeType: 'text/html;profile=mcp-app',
        text: page,
        _meta: { ui: { csp: { resourceDomains: ['https://unpkg.com'] } } },
      }),
    ]);
    expect(await call(client, 'show_stock', { item: 'beans' })).toMatchObject({
      structuredContent: { item: 'beans', units: 12 },
    });
    // The page's SDK: the installed ext-apps major, a file it has, which exports App.
    const [, major, file] =
      /from 'https:\/\/unpkg\.com\/@modelcontextprotocol\/ext-apps@(\d+)\/(\S+)'/.exec(page ?? '') ?? [];
    const extApps = join(ROOT, 'node_modules', '@modelcontextprotocol', 'ext-apps');
    expect(major).toBe(String(JSON.parse(readFileSync(join(extApps, 'package.json'), 'utf8')).version).split('.')[0]);
    expect(readFileSync(join(extApps, file as string), 'utf8')).toMatch(/export\s*\{[^}]*\bas App\b[^}]*\}/);
    // The page's button: a client that renders apps (it declares the extension) sees and calls the app-only tool.
    const host = new SdkClient(
      { name: 'apps-host', version: '1.0.0' },
      { capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } } },
    );
    await host.connect(new StreamableHTTPClientTransport(new URL('/mcp', example.origin)));
    try {
      expect((await host.listTools()).tools.map((tool) => tool.name)).toEqual(['show_stock', 'restock']);
      expect(await call(host, 'restock', { item: 'beans' })).toMatchObject({
        structuredContent: { item: 'beans', units: 22 },
      });
    } finally {
      await host.close();
    }
    expect(await rejection(call(client, 'restock', { item: 'beans' }))).toMatchObject({ code: -32602 });
  },
  'paid-client.mts': async (server) => {
    // docs/guards-and-payments.md's client, an ES module in a CommonJS app: it pays and prints the forecast and receipt.
    const { code, stdout, stderr } = await server.runClient('paid-client.mts').ended();
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toBe('price: 10000 of 0x036CbD53842c5426634e7929541eC2318f3dCF7e on eip155:84532');
    expect(lines[1]).toBe('forecast: {"city":"Lisbon","forecast":"sunny"}');
    expect(JSON.parse(lines[2]!.replace(/^receipt: /, ''))).toMatchObject({
      success: true,
      network: 'eip155:84532',
      transaction: expect.stringMatching(/^0xtest-/),
    });
    expect(lines).toHaveLength(3);
  },
  'paid-tool.ts': async (example) => {
    // As docs/guards-and-payments.md's client part does it, with the testPayment of the installed tarball.
    const { testPayment } = example.load('express-mcp-router/x402/testing') as typeof import('../../lib/x402-testing');
    const client = await example.connect();
    const unpaid = await call(client, 'forecast', { city: 'Lisbon' });
    expect(unpaid).toMatchObject({
      isError: true,
      structuredContent: { x402Version: 2, accepts: [{ amount: '10000' }] },
    });
    const [requirements] = (unpaid.structuredContent as PaymentRequired).accepts;
    const payment = testPayment(requirements!);
    const paid = (await client.callTool({
      name: 'forecast',
      arguments: { city: 'Lisbon' },
      _meta: { 'x402/payment': payment },
    })) as Record<string, unknown>;
    expect(paid).toMatchObject({
      structuredContent: { city: 'Lisbon', forecast: 'sunny' },
      _meta: {
        'x402/payment-response': {
          success: true,
          network: 'eip155:84532',
          transaction: expect.stringMatching(/^0xtest-/),
        },
      },
    });
    // The same payment shown again: refused, the tool does not run.
    const again = (await client.callTool({
      name: 'forecast',
      arguments: { city: 'Porto' },
      _meta: { 'x402/payment': payment },
    })) as Record<string, unknown>;
    expect(again).toMatchObject({ isError: true, structuredContent: { error: 'Payment already used' } });
  },
  'guards.ts': async (example) => {
    const ada = await example.connect({ 'x-user': 'ada' });
    // Two credits: each call spends one and reports the balance in _meta (the tool guard's after step).
    expect(await call(ada, 'search', { q: 'tea' })).toMatchObject({
      structuredContent: { hits: ['tea: 1 result'] },
      _meta: { 'shop.example/credits': 1 },
    });
    expect(await call(ada, 'search', { q: 'tea' })).toMatchObject({ _meta: { 'shop.example/credits': 0 } });
    const broke = await call(ada, 'search', { q: 'tea' });
    expect(broke).toMatchObject({ isError: true });
    expect(text(broke)).toBe('Out of credits');
    // The router-wide guard runs before the tool's own: a blocked caller gets its JSON-RPC error.
    const mallory = await example.connect({ 'x-user': 'mallory' });
    expect(await rejection(call(mallory, 'search', { q: 'tea' }))).toMatchObject({
      code: -32600,
      message: expect.stringContaining('Blocked'),
    });
  },
};

const COMPILER_OPTIONS = { strict: true, skipLibCheck: false, target: 'ES2022', rootDir: 'src', outDir: 'dist' };
/** The apps, and whether each runs the client examples too (it then has the SDK v1 they use). */
const APPS: Array<FreshAppSpec & { app: string; clients: boolean }> = [
  {
    app: 'Express 5 TypeScript app',
    express: 'express',
    typesExpress: '@types/express',
    // `npm init` and `tsc --init`'s node16: a .ts file is CommonJS here, so the clients, with top-level await, are .mts.
    compilerOptions: { ...COMPILER_OPTIONS, module: 'node16', moduleResolution: 'node16' },
    packages: ['@modelcontextprotocol/sdk'],
    clients: true,
  },
  {
    app: 'Express 4 CommonJS app',
    express: 'express4',
    typesExpress: '@types/express4',
    // TypeScript 6 deprecates node10 (the resolution `module: commonjs` has always implied) unless told to ignore it.
    compilerOptions: { ...COMPILER_OPTIONS, module: 'commonjs', moduleResolution: 'node10', ignoreDeprecations: '6.0' },
    clients: false,
  },
];

const examples = docExamples();
const fileOf = (name: string): string => examples.find((example) => example.name === name)?.file ?? '?';
/** The programs an app compiles and runs: the servers, and the clients where it has their SDK. */
const programsOf = (clients: boolean): DocExample[] =>
  examples.filter((example) => isProgram(example) && (clients || example.against === undefined));
let work: string | undefined;
const dirOf = (app: string): string => join(work as string, app.replace(/\W+/g, '-'));
/**
 * Each app's tsc run with `--listFiles`, started for both apps at once in beforeAll: one program serves both the
 * compilation and the list of files it read (a second `--listFilesOnly` run cost ~2-4 s per app).
 */
const compiled = new Map<string, Promise<{ code: number; output: string; files: string[] }>>();
/** tsc's output split into the files `--listFiles` printed (absolute paths, one a line) and everything else. */
const listed = async (run: Promise<{ code: number; output: string }>) => {
  const { code, output } = await run;
  const lines = output.split('\n');
  const isFile = (line: string): boolean => line.startsWith('/') && existsSync(line);
  return { code, output: lines.filter((line) => line !== '' && !isFile(line)).join('\n'), files: lines.filter(isFile) };
};
const running: RunningExample[] = [];

beforeAll(() => {
  // Outside the repository, so nothing in the apps can resolve a module from its node_modules.
  work = realpathSync(mkdtempSync(join(tmpdir(), 'emr-pack-')));
  const tarball = packInto(work);
  for (const spec of APPS) {
    const dir = dirOf(spec.app);
    createFreshApp(dir, tarball, spec);
    mkdirSync(join(dir, 'src'));
    for (const { name, code } of programsOf(spec.clients)) writeFileSync(join(dir, 'src', name), code);
    // Pages, where the server examples read them: their working directory.
    for (const { name, code } of examples.filter((example) => !isProgram(example)))
      writeFileSync(join(dir, name), code);
    compiled.set(spec.app, listed(tsc(dir, '--listFiles')));
  }
}, 120_000);

afterAll(async () => {
  await Promise.all(running.map((example) => example.stop()));
  await Promise.all(compiled.values());
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

it('ships only the build output and the package files', () => {
  const installed = join(dirOf(APPS[0]!.app), 'node_modules', 'express-mcp-router');
  expect(readdirSync(installed).sort()).toEqual([
    'CHANGELOG.md',
    'LICENSE',
    'README.md',
    'dist',
    'docs',
    'package.json',
  ]);
  // README's links into docs/ resolve in node_modules too; no source maps of sources that are not shipped.
  expect(readdirSync(join(installed, 'docs')).sort()).toEqual(readdirSync(join(ROOT, 'docs')).sort());
  expect(execFileSync('find', [join(installed, 'dist'), '-name', '*.map'], { encoding: 'utf8' })).toBe('');
  expect(readdirSync(join(installed, 'dist'))).toEqual(expect.arrayContaining(['index.js', 'index.d.ts', 'router.js']));
});

it('finds the runnable examples of README.md and docs/, README among them, and has a check for each and for no other', () => {
  expect(examples.length).toBeGreaterThanOrEqual(5);
  expect(examples.map(({ file }) => file)).toContain('README.md');
  expect(Object.keys(CHECKS).sort()).toEqual(
    programsOf(true)
      .map(({ name }) => name)
      .sort(),
  );
  expect(examples.filter(({ against }) => against !== undefined).length).toBeGreaterThanOrEqual(2);
});

describe.each(APPS)('in a fresh $app', ({ app, clients }) => {
  const dir = (): string => dirOf(app);

  it('serves MCP from plain JavaScript that requires the package', () => {
    writeFileSync(
      join(dir(), 'app.js'),
      `const express = require('express');
const { mcpRouter } = require('express-mcp-router');
const mcp = mcpRouter({ name: 'js-app', version: '1.0.0', sessions: false });
mcp.tool({ name: 'add', description: 'Add', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } }, handler: ({ a, b }) => a + b });
const app = express();
app.use('/mcp', mcp);
const server = app.listen(0, '127.0.0.1', async () => {
  const res = await fetch('http://127.0.0.1:' + server.address().port + '/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } }),
  });
  console.log(res.status, await res.text());
  server.close();
});
`,
    );
    const output = execFileSync(process.execPath, ['app.js'], {
      cwd: dir(),
      encoding: 'utf8',
      env: { PATH: process.env.PATH },
    });
    // docs/api.md: a number is "structuredContent: { result: <value> } plus its JSON as a text block".
    expect(output.trim()).toBe(
      '200 {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"5"}],"structuredContent":{"result":5}}}',
    );
  });

  it("ships the doctor as the package's command: its bin starts with a shebang, runs, and says unreachable with exit 2", () => {
    // The app has the tarball unpacked, not installed by npm: no node_modules/.bin link, so the bin runs through node.
    const installed = join(dir(), 'node_modules', 'express-mcp-router');
    const { bin } = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
    };
    const script = join(installed, bin['express-mcp-router'] as string);
    expect(readFileSync(script, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
    const options = { cwd: dir(), encoding: 'utf8', env: { PATH: process.env.PATH } } as const;
    const help = spawnSync(process.execPath, [script, '--help'], options);
    expect({ status: help.status, usage: help.stdout.split('\n')[0] }).toEqual({
      status: 0,
      usage: 'Usage: express-mcp-router doctor <url> [options]',
    });
    // Port 9 (discard) on loopback: nothing listens there in a test run.
    const run = spawnSync(process.execPath, [script, 'doctor', 'http://127.0.0.1:9/mcp', '--json'], options);
    expect(run.status).toBe(2);
    expect(JSON.parse(run.stdout)).toMatchObject({
      exitCode: 2,
      findings: [{ id: 'reach.refused' }, { id: 'reach.stopped' }],
    });
  });

  it("compiles the documents' examples with skipLibCheck off: its own tsc exits 0 and prints nothing but the files it read (--listFiles)", async () => {
    expect(await compiled.get(app)).toMatchObject({ code: 0, output: '' });
  });

  it('reads no file from outside the app but the compiler and its lib, and no node_modules above it', async () => {
    for (let up = dirname(dir()); up !== dirname(up); up = dirname(up))
      expect(existsSync(join(up, 'node_modules'))).toBe(false);
    expect(relative(ROOT, dir())).toMatch(/^\.\.\//);
    const { code, files } = (await compiled.get(app)) as { code: number; files: string[] };
    expect(code).toBe(0);
    expect(files.length).toBeGreaterThan(0);
    const typescript = realpathSync(join(dir(), 'node_modules', 'typescript'));
    const outside = files.filter((file) => !file.startsWith(`${dir()}/`) && !file.startsWith(`${typescript}/`));
    expect(outside).toEqual([]);
  });

  it.each(
    programsOf(clients).map(({ name, file, against }) => [
      name,
      file,
      against === undefined
        ? 'the SDK client gets what its document says'
        : `it does what its document says against ${against}`,
    ]),
  )('runs %s (from %s) so that %s', async (name) => {
    const check = CHECKS[name];
    if (check === undefined) throw new Error(`example ${name} of ${fileOf(name)} has no entry in CHECKS`);
    if ((await compiled.get(app))?.code !== 0) throw new Error(`${app} did not compile the documents' examples`);
    // A client's check runs it against its server, started here.
    const server = examples.find((example) => example.name === name)?.against ?? name;
    const example = await startExample(dir(), server, TOKEN);
    running.push(example);
    try {
      await check(example);
    } finally {
      await example.stop();
    }
  });
});
