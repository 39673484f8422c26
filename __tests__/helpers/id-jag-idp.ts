// A test enterprise IdP (jose, on 127.0.0.1) — metadata, JWKS, ID tokens, an RFC 8693 exchange minting ID-JAGs — and a router trusting it.

import * as crypto from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { mcpRouter, type AuthServerOptions, type McpRouterOptions } from '../../lib';
import { makeSigningKey, type SigningKey } from './jwks-server';
import { listenAtMcp, type SignInServer } from './sign-in-server';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_JAG_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';
const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';

/** One client of the IdP (the MCP client's SSO registration) and the client id the ID-JAG names at the router. */
export interface IdpClient {
  readonly secret: string;
  /** The `client_id` claim of its ID-JAGs: its registration at the router (draft §5). */
  readonly routerClientId: string;
}

export interface IdJagIdp {
  /** `http://127.0.0.1:<port>`: the IdP's issuer. */
  readonly issuer: string;
  readonly jwksUri: string;
  readonly key: SigningKey;
  /** The token exchanges answered so far. */
  readonly exchanges: number;
  /** An ID token for `sub`, issued to the IdP client `clientId` (what SSO gave the MCP client). */
  idToken(sub: string, clientId: string): Promise<string>;
  /** An ID-JAG with these claims over sensible ones (`undefined` removes one), and this header over `typ`. */
  mint(claims: Record<string, unknown>, header?: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

/** The body of a form request. */
async function formOf(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

const json = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
};

/**
 * Starts the IdP. Its token endpoint takes `grant_type=token-exchange` with an ID token it issued to the
 * authenticating client (RFC 8693 §2.1, draft §4.3) and answers an ID-JAG for `audience`, `resource` and `scope`:
 * `typ` oauth-id-jag+jwt, `client_id` the client's registration at the router, a fresh `jti`, five minutes of life.
 */
export async function startIdJagIdp(clients: Record<string, IdpClient>): Promise<IdJagIdp> {
  const key = await makeSigningKey('idp-key-1');
  let exchanges = 0;
  let issuer = '';
  const sign = (claims: JWTPayload, header: Record<string, unknown> = {}) =>
    new SignJWT(claims).setProtectedHeader({ alg: key.alg, kid: key.kid, ...header }).sign(key.privateKey);

  async function exchange(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = await formOf(req);
    const client = clients[form.get('client_id') ?? ''];
    if (client === undefined || client.secret !== form.get('client_secret'))
      return json(res, 401, { error: 'invalid_client' });
    if (form.get('grant_type') !== TOKEN_EXCHANGE || form.get('requested_token_type') !== ID_JAG_TOKEN_TYPE)
      return json(res, 400, { error: 'unsupported_grant_type' });
    if (form.get('subject_token_type') !== ID_TOKEN_TYPE) return json(res, 400, { error: 'invalid_request' });
    try {
      // Draft §4.3.3: the ID token's audience is the authenticating client.
      const { payload } = await jwtVerify(form.get('subject_token') ?? '', key.publicJwk, {
        issuer,
        audience: form.get('client_id') as string,
      });
      const now = Math.floor(Date.now() / 1000);
      const scope = form.get('scope') ?? undefined;
      const idJag = await sign(
        {
          iss: issuer,
          sub: payload.sub,
          aud: form.get('audience') ?? undefined,
          resource: form.get('resource') ?? undefined,
          client_id: client.routerClientId,
          jti: crypto.randomUUID(),
          iat: now,
          exp: now + 300,
          ...(scope !== undefined && { scope }),
        },
        { typ: 'oauth-id-jag+jwt' },
      );
      exchanges += 1;
      json(res, 200, { issued_token_type: ID_JAG_TOKEN_TYPE, access_token: idJag, token_type: 'N_A', expires_in: 300 });
    } catch {
      json(res, 400, { error: 'invalid_grant' });
    }
  }

  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/.well-known/oauth-authorization-server')
      return json(res, 200, {
        issuer,
        // RFC 8414 requires it; this IdP's SSO is the tests' idToken(), so nothing answers there.
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        grant_types_supported: [TOKEN_EXCHANGE],
      });
    if (path === '/jwks') return json(res, 200, { keys: [key.publicJwk] });
    if (path === '/token' && req.method === 'POST') return void exchange(req, res);
    json(res, 404, { error: 'not_found' });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    key,
    get exchanges() {
      return exchanges;
    },
    idToken: (sub, clientId) => {
      const now = Math.floor(Date.now() / 1000);
      return sign({ iss: issuer, sub, aud: clientId, iat: now, exp: now + 3600 }, { typ: 'JWT' });
    },
    mint(claims, header = {}) {
      const now = Math.floor(Date.now() / 1000);
      const all: Record<string, unknown> = {
        iss: issuer,
        sub: 'user-1',
        jti: crypto.randomUUID(),
        iat: now,
        exp: now + 120,
      };
      for (const [name, value] of Object.entries(claims)) {
        if (value === undefined) delete all[name];
        else all[name] = value;
      }
      return sign(all as JWTPayload, { typ: 'oauth-id-jag+jwt', ...header });
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A router trusting IdPs for ID-JAGs, on a loopback port, with a `whoami` tool answering the caller's `ctx.auth`. */
export type IdJagRouter = SignInServer;

/** The router's side: `server` over a login that is never used here (the ID-JAG grant has no browser), and `more` router options. */
export async function startIdJagRouter(
  server: Partial<AuthServerOptions>,
  more: Pick<McpRouterOptions, 'store' | 'logger'> = {},
): Promise<IdJagRouter> {
  const mcp = mcpRouter({
    name: 'id-jag',
    version: '1.0.0',
    auth: { server: { signIn: () => null, ...server } },
    ...more,
  });
  mcp.tool({
    name: 'whoami',
    description: 'The caller',
    handler: (_args, ctx) => ({
      subject: ctx.auth?.subject ?? null,
      scopes: ctx.auth?.scopes ?? null,
      extra: ctx.auth?.extra ?? null,
    }),
  });
  return { mcp, ...(await listenAtMcp(mcp)) };
}
