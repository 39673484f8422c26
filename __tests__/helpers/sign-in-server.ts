// A router with auth.server on a loopback port, and the steps of a sign-in done by hand (register, authorize, consent, token).

import * as crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import express from 'express';
import { mcpRouter, type McpRouter, type McpRouterOptions } from '../../lib';
import { listenLocally, type Listening } from './ports';
import { CookieJar, followSignIn } from './sign-in-flow';

/** A router signing users in with a fixed `user` cookie (`alice` unless the cookie says otherwise). */
export interface SignInServer {
  readonly mcp: McpRouter;
  readonly app: Listening;
  /** `http://127.0.0.1:<port>/mcp`: the issuer and the resource. */
  readonly issuer: string;
  close(): Promise<void>;
}

/** The app's login: the `user` cookie, else `alice` (these tests are about the server, not the login). */
export const cookieSignIn = (req: IncomingMessage) => ({
  subject: /(?:^|;\s*)user=([a-z]+)/.exec(req.headers.cookie ?? '')?.[1] ?? 'alice',
});

export async function startSignInServer(
  server: Partial<NonNullable<NonNullable<McpRouterOptions['auth']>['server']>> = {},
): Promise<SignInServer> {
  const mcp = mcpRouter({ name: 'sign-in', version: '1.0.0', auth: { server: { signIn: cookieSignIn, ...server } } });
  mcp.tool({
    name: 'whoami',
    description: 'The caller',
    handler: (_args, ctx) => ({ subject: ctx.auth?.subject ?? null }),
  });
  return { mcp, ...(await listenAtMcp(mcp)) };
}

/** Mounts `mcp` at /mcp of a fresh app on a loopback port: the app, the issuer (`http://127.0.0.1:<port>/mcp`), and a close of both. */
export async function listenAtMcp(mcp: McpRouter): Promise<Omit<SignInServer, 'mcp'>> {
  const host = express();
  host.use('/mcp', mcp);
  const app = await listenLocally(host);
  return {
    app,
    issuer: `http://127.0.0.1:${app.port}/mcp`,
    close: async () => {
      await mcp.close();
      await app.close();
    },
  };
}

/** A PKCE pair (RFC 7636): the verifier and its S256 challenge. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = crypto.randomBytes(32).toString('base64url');
  return { verifier, challenge: crypto.createHash('sha256').update(verifier).digest('base64url') };
}

/** Registers a public client (DCR) with these redirect URIs; its client_id. */
export async function registerClient(
  issuer: string,
  redirectUris: string[],
  extra: Record<string, unknown> = {},
): Promise<Record<string, unknown> & { client_id: string }> {
  const response = await fetch(`${issuer}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Hand-made',
      redirect_uris: redirectUris,
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...extra,
    }),
  });
  if (response.status !== 201) throw new Error(`registration failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as Record<string, unknown> & { client_id: string };
}

/** The authorization URL of a request, with the usual parameters overridable (undefined removes one). */
export function authorizeUrl(issuer: string, params: Record<string, string | undefined>): string {
  const url = new URL(`${issuer}/oauth/authorize`);
  for (const [name, value] of Object.entries({
    response_type: 'code',
    code_challenge_method: 'S256',
    state: 'st-1',
    ...params,
  })) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  return url.href;
}

/** Signs in through the browser flow (consent allowed) and returns the code. */
export async function codeFor(
  issuer: string,
  clientId: string,
  redirectUri: string,
  challenge: string,
  jar = new CookieJar(),
): Promise<string> {
  const end = await followSignIn(
    authorizeUrl(issuer, { client_id: clientId, redirect_uri: redirectUri, code_challenge: challenge }),
    { stopAt: redirectUri, jar },
  );
  const code = end.location.searchParams.get('code');
  if (code === null) throw new Error(`no code: ${end.location.href}`);
  return code;
}

/** POSTs a form to the token endpoint; status and JSON body. */
export async function tokenRequest(
  issuer: string,
  form: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const response = await fetch(`${issuer}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    headers: response.headers,
  };
}
