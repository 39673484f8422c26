// tokenExchange's options and ways in: each misconfiguration throws naming the option; private_key_jwt, issuer discovery, a subjectToken of one's own, and tokenFor(ctx) once the exchange is an upstream's auth.

import { join } from 'node:path';
import express from 'express';
import { decodeJwt, exportJWK, generateKeyPair } from 'jose';
import { McpConfigError, mcpRouter, tokenExchange, type TokenExchangeOptions } from '../../../lib';
import { GATEWAY_AUDIENCE, GATEWAY_CLIENT, startExchangeIdp, type ExchangeIdp } from '../../helpers/exchange-idp';
import { listenLocally } from '../../helpers/ports';
import {
  connectCaller,
  seen,
  startGateway,
  startUpstream,
  UPSTREAM_AUDIENCE,
  type Caller,
  type TestGateway,
  type TestUpstream,
} from './exchange-fixture';

const BASE: TokenExchangeOptions = {
  tokenEndpoint: 'https://idp.example.com/token',
  audience: 'https://upstream.example.com/mcp',
  clientAuth: { clientId: 'gw', clientSecret: 'secret-value-9' },
};

describe('tokenExchange options', () => {
  it.each<[string, Record<string, unknown>, RegExp]>([
    ['neither endpoint nor issuer', { tokenEndpoint: undefined }, /exactly one of 'tokenEndpoint' and 'issuer'/],
    ['both endpoint and issuer', { issuer: 'https://idp.example.com' }, /exactly one of 'tokenEndpoint' and 'issuer'/],
    [
      'a plain http endpoint off loopback',
      { tokenEndpoint: 'http://idp.example.com/token' },
      /'tokenExchange.tokenEndpoint' must be an https URL/,
    ],
    ['no audience', { audience: undefined }, /'tokenExchange.audience' must be a non-empty string/],
    ['a bad scope', { scope: ['ok', 'not ok'] }, /'tokenExchange.scope' must be scope tokens/],
    ['no clientAuth', { clientAuth: undefined }, /'tokenExchange.clientAuth' must be/],
    [
      'secret and key',
      { clientAuth: { clientId: 'gw', clientSecret: 's', privateKey: '-----' } },
      /exactly one of clientSecret/,
    ],
    [
      'an HMAC alg',
      { clientAuth: { clientId: 'gw', privateKey: { kty: 'EC', crv: 'P-256' }, alg: 'HS256' } },
      /'tokenExchange.clientAuth.alg' must be an asymmetric JWS algorithm/,
    ],
    [
      'a PEM that is no key',
      { clientAuth: { clientId: 'gw', privateKey: 'not a pem' } },
      /'tokenExchange.clientAuth.privateKey' must be/,
    ],
    [
      'an unknown key',
      { audiance: 'x' },
      /unknown option 'tokenExchange.audiance'. Did you mean 'tokenExchange.audience'\?/,
    ],
    [
      'refreshBeforeSec 0',
      { refreshBeforeSec: 0 },
      /'tokenExchange.refreshBeforeSec' must be a whole number of seconds/,
    ],
  ])('%s: McpConfigError naming the option', (_name, change, message) => {
    expect(() => tokenExchange({ ...BASE, ...change } as TokenExchangeOptions)).toThrow(McpConfigError);
    expect(() => tokenExchange({ ...BASE, ...change } as TokenExchangeOptions)).toThrow(message);
  });

  it('never quotes the client secret in a message', () => {
    expect(() => tokenExchange({ ...BASE, clientAuth: { clientId: '', clientSecret: 'secret-value-9' } })).not.toThrow(
      /secret-value-9/,
    );
  });

  it("an upstream's auth must be a tokenExchange, is refused on a shared stdio process, and serves one router", () => {
    const mcp = mcpRouter({ name: 'gw', version: '1.0.0' });
    const url = 'http://127.0.0.1:9/mcp';
    expect(() => mcp.upstream({ prefix: 'a', url, auth: {} as never })).toThrow(
      /upstream 'a': option 'auth' must be a tokenExchange/,
    );
    const exchange = tokenExchange(BASE);
    expect(() => mcp.upstream({ prefix: 'b', command: 'true', auth: exchange })).toThrow(
      /option 'auth' must be absent for a 'shared' stdio process/,
    );
    mcp.upstream({ prefix: 'c', url, auth: exchange, listTimeoutMs: 50 });
    mcp.upstream({ prefix: 'd', url, auth: exchange, listTimeoutMs: 50 });
    const other = mcpRouter({ name: 'other', version: '1.0.0' });
    expect(() => other.upstream({ prefix: 'e', url, auth: exchange })).toThrow(/already used by another router/);
    return Promise.all([mcp.close(), other.close()]);
  });

  it('tokenFor before the exchange is any upstream’s auth: rejects without a token', async () => {
    const ctx = { auth: { subject: 'x', scopes: [] } } as never;
    await expect(tokenExchange({ ...BASE, subjectToken: () => 't' }).tokenFor(ctx)).rejects.toThrow(
      'Upstream "tokenExchange" could not get a token for the caller',
    );
  });
});

describe('ways to reach the IdP', () => {
  let idp: ExchangeIdp;
  let upstream: TestUpstream;
  const opened: Array<TestGateway | Caller> = [];
  beforeAll(async () => {
    idp = await startExchangeIdp();
    upstream = await startUpstream(idp, ['2025', '2026']);
  });
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((part) => part.close()));
  });
  afterAll(async () => {
    await upstream?.close();
    await idp?.close();
  });

  async function whoami(exchange: Partial<TokenExchangeOptions>, subject: string): Promise<ReturnType<typeof seen>> {
    const gateway = await startGateway(idp, { up: upstream.url }, exchange);
    opened.push(gateway);
    const caller = await connectCaller(gateway.url, await idp.mint(subject, GATEWAY_AUDIENCE), '2026');
    opened.push(caller);
    return seen(await caller.call('up__whoami'));
  }

  it('private_key_jwt: the gateway signs an RFC 7523 assertion the IdP verifies', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    idp.trustGatewayKey({ ...(await exportJWK(publicKey)), alg: 'ES256', kid: 'gw-1' });
    const jwk = { ...(await exportJWK(privateKey)), kid: 'gw-1' };
    const result = await whoami({ clientAuth: { clientId: GATEWAY_CLIENT.clientId, privateKey: jwk } }, 'keyed');
    expect(result.subject).toBe('keyed');
    expect(idp.exchanges.at(-1)?.clientAuth).toBe('private_key_jwt');
  });

  it("issuer: the token endpoint is read from the IdP's RFC 8414 metadata", async () => {
    const result = await whoami({ tokenEndpoint: undefined, issuer: idp.issuer, resource: UPSTREAM_AUDIENCE }, 'found');
    expect(result).toMatchObject({ subject: 'found', audience: UPSTREAM_AUDIENCE });
    expect(idp.exchanges.at(-1)).toMatchObject({ subject: 'found', resource: UPSTREAM_AUDIENCE });
  });

  it('subjectToken: a token of the app’s own choosing is exchanged instead of the presented one', async () => {
    const chosen = await idp.mint('chosen-subject', GATEWAY_AUDIENCE);
    const result = await whoami({ subjectToken: () => chosen }, 'presenter');
    expect(result.subject).toBe('chosen-subject');
  });

  it('tokenFor(ctx) in a handler (what a per-principal env function does) once the exchange is an upstream’s auth', async () => {
    const exchange = tokenExchange({
      tokenEndpoint: idp.tokenEndpoint,
      audience: UPSTREAM_AUDIENCE,
      clientAuth: GATEWAY_CLIENT,
    });
    const presented = await idp.mint('static-caller', GATEWAY_AUDIENCE);
    const mcp = mcpRouter({
      name: 'gw',
      version: '1.0.0',
      logger: { error: jest.fn(), warn: jest.fn() },
      auth: { tokens: [{ token: presented, subject: 'static-caller' }] },
    });
    mcp.upstream({ prefix: 'up', url: upstream.url, auth: exchange, listTimeoutMs: 1_000 });
    mcp.tool({ name: 'token', description: 'The exchanged token', handler: (_args, ctx) => exchange.tokenFor(ctx) });
    const listening = await listenLocally(express().use('/mcp', mcp));
    opened.push({ close: async () => void (await mcp.close(), await listening.close()) } as TestGateway);
    const caller = await connectCaller(`http://127.0.0.1:${listening.port}/mcp`, presented, '2025');
    opened.push(caller);
    const token = (await caller.call('token')).content[0]?.text ?? '';
    expect(decodeJwt(token)).toMatchObject({ sub: 'static-caller', aud: UPSTREAM_AUDIENCE });
  });

  it("a per-principal stdio upstream: env reads the caller's exchanged token with tokenFor(ctx)", async () => {
    const exchange = tokenExchange({
      tokenEndpoint: idp.tokenEndpoint,
      audience: UPSTREAM_AUDIENCE,
      clientAuth: GATEWAY_CLIENT,
    });
    const presented = await idp.mint('stdio-caller', GATEWAY_AUDIENCE);
    const mcp = mcpRouter({
      name: 'gw',
      version: '1.0.0',
      logger: { error: jest.fn(), warn: jest.fn() },
      auth: { tokens: [{ token: presented, subject: 'stdio-caller' }] },
    });
    mcp.upstream({
      prefix: 'local',
      command: process.execPath,
      args: [join(__dirname, 'fixtures', 'env-server.js')],
      processes: 'per-principal',
      auth: exchange,
      env: async (ctx) => ({ TOKEN: ctx ? await exchange.tokenFor(ctx) : 'lister' }),
    });
    const listening = await listenLocally(express().use('/mcp', mcp));
    opened.push({ close: async () => void (await mcp.close(), await listening.close()) } as TestGateway);
    const caller = await connectCaller(`http://127.0.0.1:${listening.port}/mcp`, presented, '2026');
    opened.push(caller);
    const [token] = ((await caller.call('local__whoami')).content[0]?.text ?? '').split(' ');
    expect(decodeJwt(token ?? '')).toMatchObject({ sub: 'stdio-caller', aud: UPSTREAM_AUDIENCE });
  });
});
