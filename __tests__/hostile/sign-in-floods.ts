// Floods of the authorization server's store, run on each store (memory in sign-in-floods.test.ts, Redis in
// __tests__/redis/): registrations and abandoned authorizations from many addresses, while a signed-in user's
// refresh family stays valid and their client keeps working.

import express from 'express';
import { mcpRouter, type McpStore } from '../../lib';
import { readPage, type PageForm } from '../helpers/browser-driver';
import { listenLocally, type Listening } from '../helpers/ports';
import { authorizeUrl, codeFor, cookieSignIn, pkce, registerClient, tokenRequest } from '../helpers/sign-in-server';
import { silentLogger } from '../helpers/messages';

const REDIRECT = 'http://127.0.0.1:1/callback';
/** Low bounds, so a flood several times over each is quick. */
const BOUNDS = { maxRefreshFamilies: 20, maxPendingAuthorizations: 10, maxCodes: 10 };
const MAX_CLIENTS = 20;

interface FloodServer {
  readonly issuer: string;
  /** The next flooding address (X-Forwarded-For; the host trusts its loopback proxy). */
  address(): string;
  close(): Promise<void>;
}

/** A router whose sign-in store is `store` (undefined: the memory default), with `registration.maxClients` 20 and `bounds`. */
async function startFloodServer(
  store: McpStore | undefined,
  bounds: Partial<typeof BOUNDS> = {},
): Promise<FloodServer> {
  const mcp = mcpRouter({
    name: 'floods',
    version: '1.0.0',
    logger: silentLogger(),
    ...(store && { store }),
    auth: { server: { signIn: cookieSignIn, registration: { maxClients: MAX_CLIENTS }, ...bounds } },
  });
  const host = express();
  host.set('trust proxy', 'loopback');
  host.use('/mcp', mcp);
  const app: Listening = await listenLocally(host);
  let next = 0;
  return {
    issuer: `http://127.0.0.1:${app.port}/mcp`,
    address: () => `198.51.${Math.floor(++next / 250)}.${(next % 250) + 1}`,
    close: async () => {
      await mcp.close();
      await app.close();
    },
  };
}

/** A user signed in through a client: its refresh token, rotated by `refresh()`, which must keep working. */
async function signIn(issuer: string, clientId: string): Promise<{ refresh(): Promise<void> }> {
  const { verifier, challenge } = pkce();
  const code = await codeFor(issuer, clientId, REDIRECT, challenge);
  const tokens = await tokenRequest(issuer, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
    client_id: clientId,
  });
  expect(tokens.status).toBe(200);
  let token = tokens.body.refresh_token as string;
  return {
    async refresh() {
      const refreshed = await tokenRequest(issuer, {
        grant_type: 'refresh_token',
        refresh_token: token,
        client_id: clientId,
      });
      expect({ status: refreshed.status, error: refreshed.body.error }).toEqual({ status: 200, error: undefined });
      token = refreshed.body.refresh_token as string;
    },
  };
}

/** Whether the server still knows a client: the token endpoint says invalid_client (401) for an unknown one. */
async function known(issuer: string, clientId: string): Promise<boolean> {
  const answer = await tokenRequest(issuer, { grant_type: 'refresh_token', refresh_token: 'x.y', client_id: clientId });
  return answer.status !== 401;
}

/** An authorization started by `address` and left at its consent page: the form and its cookie, to answer later. */
async function abandoned(server: FloodServer, clientId: string): Promise<{ form: PageForm; cookie: string }> {
  const url = authorizeUrl(server.issuer, {
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: pkce().challenge,
  });
  const page = await fetch(url, {
    redirect: 'manual',
    headers: { cookie: 'user=mallory', 'x-forwarded-for': server.address() },
  });
  expect(page.status).toBe(200);
  const form = readPage(new URL(url), 200, await page.text()).forms[0] as PageForm;
  const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] as string;
  return { form, cookie };
}

/** Answers a consent form left earlier: 302 with a code while its authorization waits, 403 once it is gone. */
async function answer(left: { form: PageForm; cookie: string }): Promise<{ status: number; code: string | null }> {
  const response = await fetch(left.form.action, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: left.cookie },
    body: new URLSearchParams({ ...left.form.fields, decision: 'allow' }).toString(),
  });
  const location = response.headers.get('location');
  return { status: response.status, code: location === null ? null : new URL(location).searchParams.get('code') };
}

/**
 * The floods, against a router whose sign-in store is `store()` (undefined: the default memory store).
 *
 * @example
 * ```ts
 * describeSignInFloods('memory', () => undefined);
 * ```
 */
export function describeSignInFloods(name: string, store: () => McpStore | undefined): void {
  describe(`sign-in floods (${name} store)`, () => {
    jest.setTimeout(30_000);
    let server: FloodServer | undefined;
    afterEach(async () => {
      await server?.close();
      server = undefined;
    });

    it('a flood of registrations from many addresses (3 times maxClients) evicts idle clients, never a client in use', async () => {
      server = await startFloodServer(store());
      const { issuer } = server;
      const alice = await registerClient(issuer, [REDIRECT]);
      const session = await signIn(issuer, alice.client_id);
      const flood: string[] = [];
      for (let round = 0; round < 6; round++) {
        for (let i = 0; i < 10; i++) {
          const response = await fetch(`${issuer}/oauth/register`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-forwarded-for': server.address() },
            body: JSON.stringify({ redirect_uris: ['https://flood.example/cb'], token_endpoint_auth_method: 'none' }),
          });
          expect(response.status).toBe(201);
          flood.push(((await response.json()) as { client_id: string }).client_id);
        }
        // The user refreshes as the flood goes on: the client and the family stay.
        await session.refresh();
      }
      // The bound held: the flood's first registrations are gone, its last kept.
      expect(await known(issuer, flood[0] as string)).toBe(false);
      expect(await known(issuer, flood[59] as string)).toBe(true);
      // The user's client still signs in.
      await (await signIn(issuer, alice.client_id)).refresh();
    });

    it('a flood of abandoned authorizations and unredeemed codes evicts only its own kinds, never a refresh family', async () => {
      server = await startFloodServer(store(), BOUNDS);
      const { issuer } = server;
      const alice = await registerClient(issuer, [REDIRECT]);
      const session = await signIn(issuer, alice.client_id);
      const mallory = await registerClient(issuer, [REDIRECT]);
      // Authorizations left at the consent page: 4 times maxPendingAuthorizations.
      const left: Array<{ form: PageForm; cookie: string }> = [];
      for (let i = 0; i < 40; i++) {
        left.push(await abandoned(server, mallory.client_id));
        if (i % 10 === 9) await session.refresh();
      }
      expect((await answer(left[0] as (typeof left)[0])).status).toBe(403);
      // The last one answered: mallory's consent is remembered, so each authorization after it gets a code at once.
      expect((await answer(left[39] as (typeof left)[0])).status).toBe(302);
      // mallory's consent is now remembered: each authorization gets a code at once, left unredeemed (3 times maxCodes).
      const codes: Array<{ code: string; verifier: string }> = [];
      for (let i = 0; i < 30; i++) {
        const { verifier, challenge } = pkce();
        const response = await fetch(
          authorizeUrl(issuer, { client_id: mallory.client_id, redirect_uri: REDIRECT, code_challenge: challenge }),
          { redirect: 'manual', headers: { cookie: 'user=mallory', 'x-forwarded-for': server.address() } },
        );
        expect(response.status).toBe(302);
        const code = new URL(response.headers.get('location') as string).searchParams.get('code') as string;
        codes.push({ code, verifier });
        if (i % 10 === 9) await session.refresh();
      }
      // The bound held: the first code, with its own verifier, is gone; the last is redeemed.
      const redeem = ({ code, verifier }: { code: string; verifier: string }) =>
        tokenRequest(issuer, {
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT,
          code_verifier: verifier,
          client_id: mallory.client_id,
        });
      expect((await redeem(codes[0] as (typeof codes)[0])).body.error).toBe('invalid_grant');
      expect((await redeem(codes[29] as (typeof codes)[0])).status).toBe(200);
      await session.refresh();
      await (await signIn(issuer, alice.client_id)).refresh();
    });
  });
}
