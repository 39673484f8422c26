// introspectionVerifier: opaque tokens checked at a real introspection endpoint (oidc-provider), answers cached, options checked at boot.

import express from 'express';
import http from 'node:http';
import request from 'supertest';
import {
  introspectionVerifier,
  type IntrospectionVerifierOptions,
} from '../../../lib/features/verifiers/introspection-verifier';
import { mcpRouter, McpConfigError, type McpRouter } from '../../../lib';
import { MCP_ACCEPT, rpc, silentLogger } from '../../helpers/messages';
import { startOidcProvider, type TestProvider } from '../../helpers/oidc-provider';
import { listenLocally, type Listening } from '../../helpers/ports';
import { useVerifyApps } from '../../helpers/verify-app';

const serve = useVerifyApps();
/** Endpoints a test starts beside the router (proxies, hostile introspection endpoints), closed after it. */
const listening: Listening[] = [];
afterEach(async () => {
  await Promise.all(listening.splice(0).map((app) => app.close()));
});

let provider: TestProvider;
beforeAll(async () => {
  provider = await startOidcProvider();
});
afterAll(() => provider?.close());

const options = (extra: Partial<IntrospectionVerifierOptions> = {}): IntrospectionVerifierOptions => ({
  url: provider.introspectionEndpoint,
  ...provider.introspectionClient,
  logger: silentLogger(),
  ...extra,
});

/** Counts the calls reaching the provider's introspection endpoint, through a pass-through proxy on 127.0.0.1. */
async function countingProxy(): Promise<{ url: string; calls: () => number }> {
  let calls = 0;
  const target = new URL(provider.introspectionEndpoint);
  const app = express();
  app.use((req, res) => {
    calls += 1;
    req.pipe(
      http.request(
        { host: target.hostname, port: target.port, path: target.pathname, method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      ),
    );
  });
  const server = await listenLocally(app);
  listening.push(server);
  return { url: `http://127.0.0.1:${server.port}/introspect`, calls: () => calls };
}

it('accepts an active token for this resource: client_id is the subject (no sub), scope and exp reach ctx.auth', async () => {
  const { origin, call } = await serve(introspectionVerifier(options()));
  const token = await provider.mintOpaqueAccessToken(`${origin}/mcp`, 'mcp mcp:write');
  const { auth } = (await call(token).expect(200)).body.result.structuredContent;
  expect(auth).toMatchObject({
    subject: provider.opaqueClientId,
    scopes: ['mcp', 'mcp:write'],
    extra: { aud: `${origin}/mcp`, iss: provider.issuer, client_id: provider.opaqueClientId },
  });
  expect(auth.expiresAt).toBeGreaterThan(Date.now() / 1000);
});

it('refuses a token issued for another resource, and one the provider does not know', async () => {
  const { call } = await serve(introspectionVerifier(options()));
  await call(await provider.mintOpaqueAccessToken('https://other.example.com/mcp', 'mcp')).expect(401);
  await call('not-a-token-the-provider-issued').expect(401);
});

it('takes the audience from the option when given', async () => {
  const { call } = await serve(introspectionVerifier(options({ audience: 'https://api.example.com/mcp' })));
  await call(await provider.mintOpaqueAccessToken('https://api.example.com/mcp', 'mcp')).expect(200);
});

it('asks once per token: the answer is reused, an inactive one too (a flood of one bad token costs one call)', async () => {
  const proxy = await countingProxy();
  const { origin, call } = await serve(introspectionVerifier(options({ url: proxy.url })));
  const token = await provider.mintOpaqueAccessToken(`${origin}/mcp`, 'mcp');
  for (let i = 0; i < 3; i += 1) await call(token).expect(200);
  expect(proxy.calls()).toBe(1);
  await Promise.all(Array.from({ length: 5 }, () => call('bad-token').expect(401)));
  await call('bad-token').expect(401);
  expect(proxy.calls()).toBe(2);
});

it('asks again after cacheTtlMs, and after 10 s for an inactive answer', async () => {
  const proxy = await countingProxy();
  const { origin, call } = await serve(introspectionVerifier(options({ url: proxy.url, cacheTtlMs: 20_000 })));
  const token = await provider.mintOpaqueAccessToken(`${origin}/mcp`, 'mcp');
  await call(token).expect(200);
  await call('bad-token').expect(401);
  expect(proxy.calls()).toBe(2);
  const now = Date.now();
  jest.spyOn(Date, 'now').mockImplementation(() => now + 11_000);
  await call(token).expect(200);
  await call('bad-token').expect(401);
  expect(proxy.calls()).toBe(3);
  jest.spyOn(Date, 'now').mockImplementation(() => now + 21_000);
  await call(token).expect(200);
  expect(proxy.calls()).toBe(4);
});

it('refuses with a wrong client secret (the provider answers 401), logging it', async () => {
  const logger = silentLogger();
  const { origin, call } = await serve(introspectionVerifier(options({ clientSecret: 'wrong', logger })));
  await call(await provider.mintOpaqueAccessToken(`${origin}/mcp`, 'mcp')).expect(401);
  expect(logger.warn).toHaveBeenCalledWith(
    expect.any(Error),
    expect.stringMatching(/^introspectionVerifier: the introspection at .* failed \(HTTP 401\)/),
  );
});

describe('options, checked at boot', () => {
  const base = { url: 'https://idp.example.com/introspect', clientId: 'api', clientSecret: 's3cret' };
  it.each<[string, Record<string, unknown>, RegExp]>([
    ['no url', { url: undefined }, /option 'introspectionVerifier\.url' must be an https URL/],
    [
      'an http url to another host',
      { url: 'http://idp.example.com/introspect' },
      /option 'introspectionVerifier\.url' must be an https URL/,
    ],
    ['no client id', { clientId: undefined }, /option 'introspectionVerifier\.clientId' must be a non-empty string/],
    [
      'an empty secret (not echoed)',
      { clientSecret: '' },
      /option 'introspectionVerifier\.clientSecret' must be a non-empty string, got "string"/,
    ],
    [
      'a zero TTL',
      { cacheTtlMs: 0 },
      /option 'introspectionVerifier\.cacheTtlMs' must be a positive number of milliseconds/,
    ],
    [
      'a bad timeout',
      { timeoutMs: '5s' },
      /option 'introspectionVerifier\.timeoutMs' must be a positive number of milliseconds/,
    ],
    ['a bad size bound', { maxBytes: -1 }, /option 'introspectionVerifier\.maxBytes' must be a positive integer/],
    ['an empty audience', { audience: '' }, /option 'introspectionVerifier\.audience'/],
    [
      'a misspelt option',
      { timeoutMS: 5 },
      /unknown option 'introspectionVerifier\.timeoutMS'\. Did you mean 'introspectionVerifier\.timeoutMs'\?/,
    ],
  ])('%s → McpConfigError', (_label, change, message) => {
    const attempt = (): unknown => introspectionVerifier({ ...base, ...change } as IntrospectionVerifierOptions);
    expect(attempt).toThrow(McpConfigError);
    expect(attempt).toThrow(message);
  });
});

describe('a hostile or failing introspection endpoint', () => {
  /** An endpoint on 127.0.0.1 answering with `handler`. */
  async function endpoint(handler: express.RequestHandler): Promise<string> {
    const app = express();
    app.post('/introspect', handler);
    const server = await listenLocally(app);
    listening.push(server);
    return `http://127.0.0.1:${server.port}/introspect`;
  }

  it('one that never answers: 401 within timeoutMs, logged, not cached (the next request asks again)', async () => {
    let calls = 0;
    const url = await endpoint(() => void (calls += 1));
    const logger = silentLogger();
    const { call } = await serve(introspectionVerifier(options({ url, timeoutMs: 200, logger })));
    const started = Date.now();
    await call('some-token').expect(401);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(logger.warn).toHaveBeenCalledWith(
      expect.any(Error),
      expect.stringMatching(/failed \(no answer within 200 ms\)/),
    );
    await call('some-token').expect(401);
    expect(calls).toBe(2);
    // Logged once a minute at most, not per request.
    expect(logger.warn).toHaveBeenCalledTimes(1);
  });

  it.each([
    ['declared (Content-Length)', (res: express.Response, body: string) => res.type('json').send(body)],
    [
      'streamed (chunked)',
      (res: express.Response, body: string) => res.writeHead(200, { 'content-type': 'application/json' }).end(body),
    ],
  ])('an active answer larger than maxBytes, %s: 401, reported as too large', async (_label, send) => {
    const url = await endpoint((_req, res) =>
      send(res, JSON.stringify({ active: true, sub: 'x', pad: 'a'.repeat(200_000) })),
    );
    const logger = silentLogger();
    const { call } = await serve(introspectionVerifier(options({ url, maxBytes: 1024, logger })));
    await call('some-token').expect(401);
    expect(logger.warn).toHaveBeenCalledWith(
      expect.any(Error),
      expect.stringMatching(/failed \(the answer is larger than 1024 bytes\)/),
    );
  });

  it.each([
    ['not JSON', 'active'],
    ['a JSON array', '[{"active":true,"sub":"x"}]'],
    ['active as a string', '{"active":"true","sub":"x"}'],
    ['active without any principal', '{"active":true}'],
    ['an exp in the past', `{"active":true,"sub":"x","exp":${Math.floor(Date.now() / 1000) - 10}}`],
  ])('an answer that is %s: 401', async (_label, body) => {
    const url = await endpoint((_req, res) => res.type('json').send(body));
    const { call } = await serve(introspectionVerifier(options({ url })));
    await call('some-token').expect(401);
  });
});
