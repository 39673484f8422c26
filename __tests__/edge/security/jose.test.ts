// Which Node versions can load jose, and every option that needs it failing at boot, named, on one that cannot: the
// version is injected per call (the check's own parameter), never written into process.versions.

import * as joseModule from '../../../lib/edge/security/jose';
import { nodeRequiresEsm, requireJoseFor } from '../../../lib/edge/security/jose';
import { McpConfigError, mcpRouter, oidcUpstream, jwtVerifier, tokenExchange } from '../../../lib';

describe('nodeRequiresEsm', () => {
  it.each([
    ['20.19.0', true],
    ['20.19.5', true],
    ['20.20.0', true],
    ['22.12.0', true],
    ['22.20.1', true],
    ['23.0.0', true],
    ['24.11.0', true],
    ['20.3.0', false],
    ['20.18.3', false],
    ['21.7.3', false],
    ['22.11.0', false],
    ['18.20.8', false],
    ['not a version', false],
  ])('%s → %s', (version, expected) => {
    expect(nodeRequiresEsm(version)).toBe(expected);
  });

  it('is true for the Node running this suite, whose sign-in tests load jose', () => {
    expect(nodeRequiresEsm(process.versions.node)).toBe(true);
    expect(() => requireJoseFor('auth.server')).not.toThrow();
  });
});

describe('requireJoseFor', () => {
  it('names the option, the versions needed and the running one', () => {
    const err = (() => {
      try {
        requireJoseFor('auth.server', '20.18.1');
      } catch (thrown) {
        return thrown;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(McpConfigError);
    expect(err).toMatchObject({
      code: 'ERR_MCP_INVALID_OPTION',
      message:
        "mcpRouter: option 'auth.server' needs Node 20.19+ or 22.12+ (this is Node 20.18.1): it signs or verifies JWTs with jose, an ES module that older Node versions cannot require()",
    });
  });
});

describe('every option that loads jose, on Node 20.18.1', () => {
  const OLD_NODE = '20.18.1';
  let checked: string[];

  beforeEach(() => {
    checked = [];
    const real = joseModule.requireJoseFor;
    // The check itself, with the old version passed in: the options call it through the module's export.
    jest.spyOn(joseModule, 'requireJoseFor').mockImplementation((option) => {
      checked.push(option);
      real(option, OLD_NODE);
    });
  });

  afterEach(() => jest.restoreAllMocks());

  const refused = (build: () => unknown, option: string): void => {
    expect(build).toThrow(new McpConfigError('ERR_MCP_INVALID_OPTION', `option '${option}' needs Node 20.19+`).message);
    expect(checked).toEqual([option]);
  };

  it("auth.server: mcpRouter() throws, naming 'auth.server'", () => {
    refused(
      () => mcpRouter({ name: 's', version: '1', auth: { server: { signIn: () => ({ subject: 'a' }) } } }),
      'auth.server',
    );
  });

  it("auth.dpop: mcpRouter() throws, naming 'auth.dpop'", () => {
    refused(() => mcpRouter({ name: 's', version: '1', auth: { tokens: ['t'.repeat(32)], dpop: {} } }), 'auth.dpop');
  });

  it("jwtVerifier() throws, naming 'jwtVerifier'", () => {
    refused(
      () => jwtVerifier({ issuer: 'https://idp.example.com', jwksUri: 'https://idp.example.com/jwks' }),
      'jwtVerifier',
    );
  });

  it("tokenExchange() throws, naming 'tokenExchange' (with a secret too: it reads the caller's JWT aud with jose)", () => {
    refused(
      () =>
        tokenExchange({
          tokenEndpoint: 'https://idp.example.com/token',
          audience: 'https://upstream.example.com/mcp',
          clientAuth: { clientId: 'gw', clientSecret: 'secret-value-9' },
        }),
      'tokenExchange',
    );
  });

  it("oidcUpstream() with an issuer throws, naming 'oidcUpstream.issuer'; one with explicit endpoints needs no jose", () => {
    refused(
      () => oidcUpstream({ issuer: 'https://login.example.com', clientId: 'mcp', clientSecret: 'secret' }),
      'oidcUpstream.issuer',
    );
    checked = [];
    expect(() =>
      oidcUpstream({
        clientId: 'mcp',
        clientSecret: 'secret',
        authorizationEndpoint: 'https://github.com/login/oauth/authorize',
        tokenEndpoint: 'https://github.com/login/oauth/access_token',
        userinfoEndpoint: 'https://api.github.com/user',
      }),
    ).not.toThrow();
    expect(checked).toEqual([]);
  });

  it('a router without them boots: bearer tokens, a verify function, no dpop', () => {
    expect(() => mcpRouter({ name: 's', version: '1', auth: { tokens: ['t'.repeat(32)] } })).not.toThrow();
    expect(() => mcpRouter({ name: 's', version: '1', auth: { verify: () => null } })).not.toThrow();
    expect(checked).toEqual([]);
  });
});

describe('on a Node whose require() cannot load jose', () => {
  afterEach(() => jest.dontMock('jose'));

  it('a router with bearer tokens or a verify function boots and serves: nothing loads jose until a JWT or proof comes', async () => {
    jest.doMock('jose', () => {
      throw new Error('require() of ES Module jose not supported');
    });
    let lib: typeof import('../../../lib') | undefined;
    jest.isolateModules(() => {
      lib = require('../../../lib') as typeof import('../../../lib');
    });
    const express = require('express') as typeof import('express');
    const request = require('supertest') as typeof import('supertest');
    for (const auth of [
      { tokens: ['t'.repeat(32)] },
      { verify: (token: string) => (token === 'ok' ? { subject: 'u', scopes: [] } : null) },
    ]) {
      const mcp = lib!.mcpRouter({ name: 's', version: '1', sessions: false, auth });
      const app = express().use('/mcp', mcp);
      const token = 'tokens' in auth ? 't'.repeat(32) : 'ok';
      const res = await request(app)
        .post('/mcp')
        .set({ Accept: 'application/json, text/event-stream', Authorization: `Bearer ${token}` })
        .send({ jsonrpc: '2.0', id: 1, method: 'ping' });
      expect(res.status).toBe(200);
      await mcp.close();
    }
  });
});
