// Test helper: a small RFC 8693 token-exchange IdP on 127.0.0.1, built with jose: it mints caller tokens, verifies the subject tokens it is sent, and issues JWTs for the requested audience.

import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalJWKSet, jwtVerify, type JWK } from 'jose';
import { makeSigningKey, signToken, type SigningKey } from './jwks-server';

/** The gateway's credentials at the IdP (client_secret_basic). */
export const GATEWAY_CLIENT = { clientId: 'mcp-gateway', clientSecret: 'gateway-s3cret-at-idp' };
/** The audience of the tokens callers present to the gateway. */
export const GATEWAY_AUDIENCE = 'https://gateway.test/mcp';

/** One token-exchange request as the IdP received it (the subject token verified). */
export interface ExchangeSeen {
  readonly subject: string;
  readonly audience: string | null;
  readonly resource: string | null;
  readonly scope: string | null;
  readonly requestedTokenType: string | null;
  /** How the gateway authenticated: 'basic' or 'private_key_jwt'. */
  readonly clientAuth: string;
}

export interface ExchangeIdp {
  readonly issuer: string;
  readonly tokenEndpoint: string;
  readonly jwksUri: string;
  /** Every exchange the IdP answered with a token or an error it decided (not the misbehaving ones). */
  readonly exchanges: ExchangeSeen[];
  /** Requests to the token endpoint, whatever became of them. */
  readonly tokenRequests: number;
  /** A token of the IdP: sub, aud, lifetime in seconds. */
  mint(subject: string, audience: string, lifetimeSec?: number, extra?: Record<string, unknown>): Promise<string>;
  /** How long the tokens it issues by exchange live (`expires_in`). Defaults to 3600. */
  lifetimeSec: number;
  /** Answers the token endpoint with a handler of the test's own from now on (undefined: the real exchange). */
  misbehave(handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined): void;
  /** Accepts private_key_jwt assertions from the gateway signed by this public key. */
  trustGatewayKey(jwk: JWK): void;
  close(): Promise<void>;
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Starts the IdP on a free port of 127.0.0.1; its metadata is at RFC 8414's well-known path. */
export async function startExchangeIdp(): Promise<ExchangeIdp> {
  const key: SigningKey = await makeSigningKey('idp-1');
  const keys = createLocalJWKSet({ keys: [key.publicJwk] });
  let gatewayKeys: ReturnType<typeof createLocalJWKSet> | undefined;
  let misbehaving: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  let tokenRequests = 0;
  const exchanges: ExchangeSeen[] = [];
  const server = createServer((req, res) => void handle(req, res).catch(() => json(res, 500, {})));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const tokenEndpoint = `${issuer}/token`;

  async function clientAuthOf(req: IncomingMessage, form: URLSearchParams): Promise<string | undefined> {
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (basic !== undefined) {
      const [id, secret] = Buffer.from(basic, 'base64').toString().split(':').map(decodeURIComponent);
      return id === GATEWAY_CLIENT.clientId && secret === GATEWAY_CLIENT.clientSecret ? 'basic' : undefined;
    }
    const assertion = form.get('client_assertion');
    if (assertion === null || gatewayKeys === undefined) return undefined;
    try {
      const { payload } = await jwtVerify(assertion, gatewayKeys, { audience: tokenEndpoint });
      return payload.iss === GATEWAY_CLIENT.clientId && payload.sub === GATEWAY_CLIENT.clientId && payload.jti
        ? 'private_key_jwt'
        : undefined;
    } catch {
      return undefined;
    }
  }

  async function exchange(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = await readForm(req);
    const clientAuth = await clientAuthOf(req, form);
    if (clientAuth === undefined) return json(res, 401, { error: 'invalid_client' });
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:token-exchange')
      return json(res, 400, { error: 'unsupported_grant_type' });
    let subject: string;
    try {
      const { payload } = await jwtVerify(form.get('subject_token') ?? '', keys, {
        issuer,
        audience: GATEWAY_AUDIENCE,
      });
      subject = String(payload.sub);
    } catch {
      return json(res, 400, { error: 'invalid_grant', error_description: 'subject token refused' });
    }
    const audience = form.get('audience');
    exchanges.push({
      subject,
      audience,
      resource: form.get('resource'),
      scope: form.get('scope'),
      requestedTokenType: form.get('requested_token_type'),
      clientAuth,
    });
    const token = await idp.mint(subject, audience ?? '', idp.lifetimeSec, { scope: form.get('scope') ?? undefined });
    json(res, 200, {
      access_token: token,
      issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      token_type: 'Bearer',
      expires_in: idp.lifetimeSec,
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.url === '/.well-known/oauth-authorization-server')
      return json(res, 200, { issuer, token_endpoint: tokenEndpoint, jwks_uri: `${issuer}/jwks` });
    if (req.url === '/jwks') return json(res, 200, { keys: [key.publicJwk] });
    if (req.url !== '/token' || req.method !== 'POST') return json(res, 404, { error: 'not_found' });
    tokenRequests += 1;
    if (misbehaving !== undefined) return misbehaving(req, res);
    return exchange(req, res);
  }

  const idp: ExchangeIdp = {
    issuer,
    tokenEndpoint,
    jwksUri: `${issuer}/jwks`,
    exchanges,
    get tokenRequests() {
      return tokenRequests;
    },
    lifetimeSec: 3600,
    mint: (subject, audience, lifetimeSec = 3600, extra = {}) =>
      signToken(key, {
        iss: issuer,
        sub: subject,
        aud: audience,
        exp: Math.floor(Date.now() / 1000) + lifetimeSec,
        ...extra,
      }),
    misbehave(handler) {
      misbehaving = handler;
    },
    trustGatewayKey(jwk) {
      gatewayKeys = createLocalJWKSet({ keys: [jwk] });
    },
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return idp;
}
