// Behind nginx with TLS termination: the 401 challenge, the protected-resource and authorization-server metadata name
// the public https URL with `trust proxy` as the docs say (and, without it, the internal http one, with a warning);
// a forwarded host is checked like a Host; `publicUrl` wins; the SDK clients of both eras sign in through the proxy.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
  UnauthorizedError as UnauthorizedErrorV2,
} from '@modelcontextprotocol/client';
import { MCP_ACCEPT, silentLogger } from '../helpers/messages';
import { MemoryOAuthProvider } from '../helpers/oauth-client';
import { followSignIn } from '../helpers/sign-in-flow';
import { PUBLIC_HOST } from './behind-proxy';
import {
  discover,
  expectUrlsUnder,
  INITIALIZE,
  REDIRECT,
  signingIn,
  signInV1,
  useProxy,
  warnings,
  whoami,
} from './checks';

describe('as docs/deployment.md says: trust proxy, allowedHosts, the documented nginx block', () => {
  const logger = silentLogger();
  const proxy = useProxy({ router: signingIn(logger), setup: whoami });

  it('the challenge, the protected-resource and authorization-server metadata and every endpoint name https://<public host>:<port>', async () => {
    await expectUrlsUnder(proxy(), proxy().url);
    expect(proxy().url).toBe(`https://${PUBLIC_HOST}:${proxy().front.port}/mcp`);
    expect(warnings(logger).filter((text) => /trust proxy/.test(text))).toEqual([]);
  });

  it('a Host not in allowedHosts is refused 403', async () => {
    const answer = await proxy().fetch(proxy().url, {
      method: 'POST',
      headers: { host: `elsewhere.test:${proxy().front.port}`, 'content-type': 'application/json', accept: MCP_ACCEPT },
      body: JSON.stringify(INITIALIZE),
    });
    expect(answer.status).toBe(403);
    expect(((await answer.json()) as { error: { message: string } }).error.message).toMatch(/allowedHosts/);
  });

  it('the SDK v1 client (2025) signs in through the proxy and calls a tool as the user', async () => {
    const client = await signInV1(proxy());
    expect((await client.callTool({ name: 'whoami', arguments: {} })).structuredContent).toEqual({ subject: 'alice' });
    await client.close();
  });

  it('the SDK v2 client (2026-07-28) signs in through the proxy and calls a tool as the user', async () => {
    const provider = new MemoryOAuthProvider(REDIRECT);
    const first = new TransportV2(new URL(proxy().url), { authProvider: provider, fetch: proxy().fetch });
    await expect(
      new ClientV2(
        { name: 'proxy-v2', version: '2.0.0' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } } },
      ).connect(first),
    ).rejects.toBeInstanceOf(UnauthorizedErrorV2);
    const end = await followSignIn((provider.authorizationUrls.at(-1) as URL).href, {
      stopAt: REDIRECT,
      fetch: proxy().fetch,
    });
    // v2 checks the callback's iss against the issuer discovery found (RFC 9207): the public one.
    await first.finishAuth(end.location.searchParams);
    const client = new ClientV2(
      { name: 'proxy-v2', version: '2.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(new TransportV2(new URL(proxy().url), { authProvider: provider, fetch: proxy().fetch }));
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect((await client.callTool({ name: 'whoami', arguments: {} })).structuredContent).toEqual({ subject: 'alice' });
    await client.close();
  });
});

describe('without trust proxy: the clear failure mode', () => {
  const logger = silentLogger();
  const proxy = useProxy({ router: signingIn(logger), setup: whoami, trustProxy: false });

  it('the metadata names the http:// URL the app sees, and the router warns once, naming trust proxy and publicUrl', async () => {
    await expectUrlsUnder(proxy(), `http://${proxy().host}/mcp`);
    await discover(proxy());
    const told = warnings(logger).filter((text) => /trust proxy/.test(text));
    expect(told).toHaveLength(1);
    expect(told[0]).toMatch(/publicUrl/);
  });

  it('the SDK v1 client cannot sign in: the documents send it to an http:// address nothing serves', async () => {
    const provider = new MemoryOAuthProvider(REDIRECT);
    const transport = new StreamableHTTPClientTransport(new URL(proxy().url), {
      authProvider: provider,
      fetch: proxy().fetch,
    });
    // The SDK gives up on the metadata it cannot fetch and falls back to guesses at the origin's root, which fail:
    // the user never reaches a sign-in page, with an error that does not say why (hence the router's warning).
    await expect(new Client({ name: 'proxy-v1', version: '1.0.0' }).connect(transport)).rejects.toThrow();
    expect(provider.authorizationUrls).toEqual([]);
  });
});

describe('a proxy that sends the public name only in X-Forwarded-Host (Host is its upstream name)', () => {
  const proxy = useProxy({ router: signingIn(), setup: whoami, nginx: { forwardedHostOnly: true } });

  it('with trust proxy, the metadata names the public host', async () => {
    await expectUrlsUnder(proxy(), proxy().url);
  });

  it('a forwarded host not in allowedHosts is refused 403, as a Host would be', async () => {
    const answer = await proxy().fetch(proxy().url, {
      method: 'POST',
      headers: { host: `elsewhere.test:${proxy().front.port}`, 'content-type': 'application/json', accept: MCP_ACCEPT },
      body: JSON.stringify(INITIALIZE),
    });
    expect(answer.status).toBe(403);
    // The name refused is the forwarded one (nginx's Host here is its upstream's name, mcp_app).
    expect(((await answer.json()) as { error: { message: string } }).error.message).toMatch(
      /elsewhere\.test.*allowedHosts/,
    );
  });

  it('the SDK v1 client signs in and calls a tool', async () => {
    const client = await signInV1(proxy());
    expect((await client.callTool({ name: 'whoami', arguments: {} })).structuredContent).toEqual({ subject: 'alice' });
    await client.close();
  });
});

describe('publicUrl set', () => {
  const PUBLIC_URL = 'https://mcp.example.com/mcp';
  const proxy = useProxy({
    setup: whoami,
    // publicUrl: the endpoint's public URL, whatever the request's headers say (here: untrusted ones).
    router: {
      ...signingIn(),
      publicUrl: PUBLIC_URL,
      allowedHosts: [PUBLIC_HOST, 'mcp.example.com'],
    },
    trustProxy: false,
  });

  it('the metadata names exactly it, whatever the headers', async () => {
    await expectUrlsUnder(proxy(), PUBLIC_URL);
  });
});
