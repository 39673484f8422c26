// The demo's enterprise IdP for AUTH=enterprise (jose): ID tokens for any user name (standing for the company's SSO), and
// an RFC 8693 token exchange turning one into an ID-JAG for the router (SEP-990). A demo: no passwords, keys in memory.

import { randomUUID } from 'node:crypto';
import express from 'express';
import { exportJWK, generateKeyPair, jwtVerify, SignJWT, type CryptoKey, type JWK } from 'jose';

/** The IdP's issuer: a name only, since the router is given its keys inline (it never fetches them). */
export const DEMO_IDP_ISSUER = 'https://idp.demo.example';
/** The MCP client, as registered at the IdP and (the same id) at the router. */
export const DEMO_AGENT = { clientId: 'demo-agent', idpSecret: 'demo-idp-secret', routerSecret: 'demo-agent-secret' };

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';
const USER_NAME = /^[A-Za-z0-9._-]{1,32}$/;

/** The demo IdP: its public keys (for `trustedIdps`) and its routes (mounted at /idp). */
export interface DemoIdp {
  readonly jwks: { keys: JWK[] };
  readonly routes: express.Router;
}

/** Makes the IdP, with a fresh ES256 key. */
export async function createDemoIdp(): Promise<DemoIdp> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const kid = randomUUID();
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  const sign = (claims: Record<string, unknown>, typ: string, ttl: string) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'ES256', kid, typ })
      .setIssuer(DEMO_IDP_ISSUER)
      .setIssuedAt()
      .setExpirationTime(ttl)
      .sign(privateKey as CryptoKey);

  const routes = express.Router();
  // What the client's SSO would give it: an ID token for the user, issued to the client (any name, no password).
  routes.get('/id-token', async (req, res) => {
    const user = String(req.query.user ?? '');
    if (!USER_NAME.test(user)) return void res.status(400).json({ error: 'invalid_request' });
    res.json({ id_token: await sign({ sub: user, aud: DEMO_AGENT.clientId }, 'JWT', '1h') });
  });
  routes.post('/token', express.urlencoded({ extended: false }), async (req, res) => {
    const form = req.body as Record<string, string | undefined>;
    if (form.client_id !== DEMO_AGENT.clientId || form.client_secret !== DEMO_AGENT.idpSecret)
      return void res.status(401).json({ error: 'invalid_client' });
    if (
      form.grant_type !== TOKEN_EXCHANGE ||
      form.requested_token_type !== ID_JAG ||
      form.subject_token_type !== ID_TOKEN
    )
      return void res.status(400).json({ error: 'invalid_request' });
    if (form.audience === undefined) return void res.status(400).json({ error: 'invalid_request' });
    try {
      const { payload } = await jwtVerify(form.subject_token ?? '', publicKey, {
        issuer: DEMO_IDP_ISSUER,
        audience: DEMO_AGENT.clientId,
      });
      // The company's policy would decide here; the demo grants what is asked.
      const idJag = await sign(
        {
          sub: payload.sub,
          aud: form.audience,
          client_id: DEMO_AGENT.clientId,
          jti: randomUUID(),
          ...(form.resource !== undefined && { resource: form.resource }),
          ...(form.scope !== undefined && { scope: form.scope }),
        },
        'oauth-id-jag+jwt',
        '5m',
      );
      res
        .set('Cache-Control', 'no-store')
        .json({ issued_token_type: ID_JAG, access_token: idJag, token_type: 'N_A', expires_in: 300 });
    } catch {
      res.status(400).json({ error: 'invalid_grant' });
    }
  });
  return { jwks: { keys: [jwk] }, routes };
}
