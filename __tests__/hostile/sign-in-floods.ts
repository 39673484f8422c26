// Floods of the authorization server's store, run on each store (memory in sign-in-floods.test.ts, Redis in
// __tests__/features/redis/): registrations and abandoned authorizations from many addresses, while a signed-in user's
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

/** A router whose sign-in store is `store` (undefined: the memory default), with `registration.maxClients` (20) and `bounds`. */
async function startFloodServer(
  store: McpStore | undefined,
  bounds: Partial<typeof BOUNDS> = {},
  maxClients = MAX_CLIENTS,
): Promise<FloodServer> {
  const mcp = mcpRouter({
    name: 'floods',
    version: '1.0.0',
    logger: silentLogger(),
    ...(store && { store }),
    auth: {
      server: {
        signIn: cookieSignIn,
        registration: { maxClients },
        // Documents from this host's loopback test server (below).
        clientMetadataDocuments: { allowPrivateAddresses: true },
        ...bounds,
      },
    },
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

/** The registrations of a flood, each from its own address (under the per-address rate limit): their client ids. */
async function registrations(server: FloodServer, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${server.issuer}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': server.address() },
      body: JSON.stringify({ redirect_uris: ['https://flood.example/cb'], token_endpoint_auth_method: 'none' }),
    });
    expect(response.status).toBe(201);
    ids.push(((await response.json()) as { client_id: string }).client_id);
  }
  return ids;
}

/** A code for `clientId`, through the browser sign-in, and its verifier. */
async function issuedCode(issuer: string, clientId: string): Promise<{ code: string; verifier: string }> {
  const { verifier, challenge } = pkce();
  return { code: await codeFor(issuer, clientId, REDIRECT, challenge), verifier };
}

/** The token request redeeming `issued`, as `client` (with its secret when it has one). */
function redeemAs(issuer: string, client: Client, issued: { code: string; verifier: string }) {
  return tokenRequest(issuer, {
    grant_type: 'authorization_code',
    code: issued.code,
    redirect_uri: REDIRECT,
    code_verifier: issued.verifier,
    ...credentials(client),
  });
}

/** A client as the token endpoint knows it: its id, and its secret when it is confidential. */
interface Client {
  readonly client_id: string;
  readonly client_secret?: unknown;
}

/** The form fields a client authenticates with (client_secret_post for a confidential one). */
function credentials(client: Client): Record<string, string> {
  const fields: Record<string, string> = { client_id: client.client_id };
  if (typeof client.client_secret === 'string') fields.client_secret = client.client_secret;
  return fields;
}

/** A user signed in through a client: its refresh token, rotated by `refresh()`, which must keep working. */
async function signIn(issuer: string, client: Client | string): Promise<{ refresh(): Promise<void>; token(): string }> {
  const who = typeof client === 'string' ? { client_id: client } : client;
  const tokens = await redeemAs(issuer, who, await issuedCode(issuer, who.client_id));
  expect(tokens.status).toBe(200);
  let token = tokens.body.refresh_token as string;
  return {
    token: () => token,
    async refresh() {
      const refreshed = await tokenRequest(issuer, {
        grant_type: 'refresh_token',
        refresh_token: token,
        ...credentials(who),
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

    it("an idle user's refresh works after a flood of registrations (maxClients x4) while they were idle", async () => {
      server = await startFloodServer(store(), {}, 5);
      const { issuer } = server;
      const alice = await registerClient(issuer, [REDIRECT]);
      const bob = await registerClient(issuer, [REDIRECT], { token_endpoint_auth_method: 'client_secret_post' });
      const aliceSession = await signIn(issuer, alice);
      const bobSession = await signIn(issuer, bob);
      // Idle while 20 clients register from 20 addresses: both registrations are evicted from the store.
      const flood = await registrations(server, 20);
      expect(await known(issuer, alice.client_id)).toBe(false);
      expect(await known(issuer, bob.client_id)).toBe(false);
      // The family keeps the registration, secret as its digest: a wrong secret restores nothing, spends nothing.
      const forged = await tokenRequest(issuer, {
        grant_type: 'refresh_token',
        refresh_token: bobSession.token(),
        client_id: bob.client_id,
        client_secret: 'not-the-secret',
      });
      expect({ status: forged.status, error: forged.body.error }).toEqual({ status: 401, error: 'invalid_client' });
      expect(await known(issuer, bob.client_id)).toBe(false);
      // Their next refreshes work, and restore the registrations (a new sign-in through each works too).
      await aliceSession.refresh();
      await bobSession.refresh();
      expect(await known(issuer, alice.client_id)).toBe(true);
      await (await signIn(issuer, alice)).refresh();
      await (await signIn(issuer, bob)).refresh();
      // The bound still holds: the flood's first registrations are gone, its last kept.
      expect(await known(issuer, flood[0] as string)).toBe(false);
      expect(await known(issuer, flood[19] as string)).toBe(true);
    });

    it('an idle user revokes their refresh token after a flood of registrations (maxClients x4): the family ends', async () => {
      server = await startFloodServer(store(), {}, 5);
      const { issuer } = server;
      const alice = await registerClient(issuer, [REDIRECT]);
      const session = await signIn(issuer, alice);
      await registrations(server, 20);
      expect(await known(issuer, alice.client_id)).toBe(false);
      const revoked = await fetch(`${issuer}/oauth/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: session.token(), client_id: alice.client_id }).toString(),
      });
      expect(revoked.status).toBe(200);
      const after = await tokenRequest(issuer, {
        grant_type: 'refresh_token',
        refresh_token: session.token(),
        client_id: alice.client_id,
      });
      expect({ status: after.status, error: after.body.error }).toEqual({ status: 400, error: 'invalid_grant' });
    });

    it('a code issued before a flood of registrations (maxClients x4) is redeemed after it, and its family refreshes', async () => {
      server = await startFloodServer(store(), {}, 5);
      const { issuer } = server;
      const alice = await registerClient(issuer, [REDIRECT]);
      const bob = await registerClient(issuer, [REDIRECT], { token_endpoint_auth_method: 'client_secret_post' });
      const aliceCode = await issuedCode(issuer, alice.client_id);
      const bobCode = await issuedCode(issuer, bob.client_id);
      await registrations(server, 20);
      expect(await known(issuer, alice.client_id)).toBe(false);
      for (const [client, issued] of [
        [alice, aliceCode],
        [bob, bobCode],
      ] as const) {
        const tokens = await redeemAs(issuer, client, issued);
        expect({ status: tokens.status, error: tokens.body.error }).toEqual({ status: 200, error: undefined });
        const refreshed = await tokenRequest(issuer, {
          grant_type: 'refresh_token',
          refresh_token: tokens.body.refresh_token as string,
          ...credentials(client),
        });
        expect(refreshed.status).toBe(200);
      }
    });

    it('an authorization waiting at its consent page through a flood of registrations (maxClients x4) ends in a working code', async () => {
      server = await startFloodServer(store(), {}, 5);
      const { issuer } = server;
      const alice = await registerClient(issuer, [REDIRECT]);
      const { verifier, challenge } = pkce();
      const url = authorizeUrl(issuer, {
        client_id: alice.client_id,
        redirect_uri: REDIRECT,
        code_challenge: challenge,
      });
      const page = await fetch(url, { redirect: 'manual', headers: { cookie: 'user=alice' } });
      expect(page.status).toBe(200);
      const form = readPage(new URL(url), 200, await page.text()).forms[0] as PageForm;
      const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] as string;
      await registrations(server, 20);
      const answered = await answer({ form, cookie });
      expect(answered.status).toBe(302);
      const tokens = await redeemAs(issuer, alice, { code: answered.code as string, verifier });
      expect({ status: tokens.status, error: tokens.body.error }).toEqual({ status: 200, error: undefined });
    });

    it("a metadata-document client's refresh works after a flood evicted its cached document: fetched again", async () => {
      server = await startFloodServer(store(), {}, 5);
      const { issuer } = server;
      let fetches = 0;
      const documents = express();
      documents.get('/client.json', (req, res) => {
        fetches++;
        res.json({
          client_id: `http://${req.headers.host}/client.json`,
          client_name: 'Document client',
          redirect_uris: [REDIRECT],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        });
      });
      const host: Listening = await listenLocally(documents);
      try {
        const clientId = `http://127.0.0.1:${host.port}/client.json`;
        const session = await signIn(issuer, clientId);
        const before = fetches;
        await registrations(server, 20);
        await session.refresh();
        expect(fetches).toBe(before + 1);
        await session.refresh();
      } finally {
        await host.close();
      }
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
