// The demo's own login for AUTH=oauth: a page at /login that takes a user name (no password), an HttpOnly session
// cookie, and the `signIn` function the router's authorization server calls (auth.server.signIn).

import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import type { McpRouter, SignInFunction } from '../lib';

/** The session cookie: an opaque id, the user name stays on the server. */
const COOKIE = 'demo_session';
/** The most sessions kept: the oldest goes first (a demo, in memory). */
const MAX_SESSIONS = 10_000;
/** A user name: what the demo accepts, so it reads well as a token's `sub`. */
const USER_NAME = /^[A-Za-z0-9._-]{1,32}$/;
/** The login page's headers: no framing, no script, nothing cached. */
const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
};

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);

/** The demo's login: the routes to mount at the app's root, and the router's `signIn`. */
export interface DemoLogin {
  /** GET /login (the form) and POST /login (sign in, then back to `returnTo`). */
  readonly routes: express.Router;
  readonly signIn: SignInFunction;
}

/**
 * Creates the demo login. `authorizePath` is the router's authorization endpoint (`/mcp/oauth/authorize`): the only
 * place the login sends a browser back to, so `returnTo` cannot make it an open redirect.
 */
export function createDemoLogin(authorizePath: string, scopes: readonly string[]): DemoLogin {
  const sessions = new Map<string, string>();

  /** Where to go after signing in: the path and query of `returnTo` when it is the authorization endpoint, else undefined. */
  const safeReturn = (returnTo: unknown): string | undefined => {
    if (typeof returnTo !== 'string' || !URL.canParse(returnTo, 'http://x')) return undefined;
    const url = new URL(returnTo, 'http://x');
    return url.pathname === authorizePath ? `${url.pathname}${url.search}` : undefined;
  };

  function page(res: express.Response, status: number, returnTo: string, problem?: string): void {
    res.status(status).set(PAGE_HEADERS).send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign in · Demo coffee store</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}input,button{font:inherit;padding:.4rem .6rem}.problem{color:#b91c1c}</style></head>
<body><main><h1>Sign in to the demo coffee store</h1>
<p>Any user name will do: this demo has no passwords. MCP clients you allow next act as this user.</p>
${problem === undefined ? '' : `<p class="problem" role="alert">${escapeHtml(problem)}</p>`}
<form method="post" action="/login"><input type="hidden" name="returnTo" value="${escapeHtml(returnTo)}">
<label for="user">User name</label> <input id="user" name="user" required autofocus autocomplete="username" pattern="[A-Za-z0-9._\\-]{1,32}">
<button type="submit">Sign in</button></form></main></body></html>`);
  }

  const routes = express.Router();
  routes.get('/login', (req, res) => {
    const returnTo = safeReturn(req.query.returnTo);
    if (returnTo === undefined)
      return void res
        .status(400)
        .set(PAGE_HEADERS)
        .send('<p>Start signing in from an MCP client: this page needs a returnTo on the MCP server.</p>');
    page(res, 200, returnTo);
  });
  routes.post('/login', express.urlencoded({ extended: false, limit: '4kb' }), (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const returnTo = safeReturn(body.returnTo);
    if (returnTo === undefined)
      return void res.status(400).set(PAGE_HEADERS).send('<p>Start signing in from an MCP client.</p>');
    const user = typeof body.user === 'string' ? body.user.trim() : '';
    if (!USER_NAME.test(user))
      return page(res, 400, returnTo, 'A user name is 1 to 32 letters, digits, dots, dashes or underscores.');
    const session = randomBytes(24).toString('base64url');
    if (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value as string);
    sessions.set(session, user);
    // SameSite=Lax: the browser sends it on the top-level navigation back from a client to the authorization endpoint.
    res.setHeader('Set-Cookie', `${COOKIE}=${session}; Path=/; HttpOnly; SameSite=Lax`);
    res.redirect(303, returnTo);
  });

  const signIn: SignInFunction = (req: IncomingMessage, res: ServerResponse, { returnTo }) => {
    const session = /(?:^|;\s*)demo_session=([\w-]+)/.exec(req.headers.cookie ?? '')?.[1];
    const user = session === undefined ? undefined : sessions.get(session);
    if (user !== undefined) return { subject: user, scopes: [...scopes] };
    res
      .writeHead(302, { Location: `/login?returnTo=${encodeURIComponent(returnTo)}`, 'Cache-Control': 'no-store' })
      .end();
    return undefined;
  };
  return { routes, signIn };
}

/** whoami: who the client acts for, from its access token (`ctx.auth`), so a client can show whom it signed in as. */
export function registerWhoami(mcp: McpRouter): void {
  mcp.tool({
    name: 'whoami',
    title: 'Who am I',
    description: 'The user this client signed in as, and the scopes its token carries',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    annotations: { readOnlyHint: true },
    handler: (_args, ctx) => ({ user: ctx.auth?.subject ?? null, scopes: ctx.auth?.scopes ?? [] }),
  });
}
