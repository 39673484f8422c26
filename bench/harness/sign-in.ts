// A bench client's sign-in to a router that is its own authorization server: one access token, through the tests' sign-in steps.

import { codeFor, pkce, registerClient, tokenRequest } from '../../__tests__/helpers/sign-in-server';

/** The redirect URI the bench client registers; the flow stops at it and is never fetched. */
const REDIRECT_URI = 'http://127.0.0.1/bench-callback';

/**
 * Registers a public client (DCR), follows the authorization URL through the app's login and the consent page,
 * and redeems the code with its PKCE verifier: the access token a client of `mcpUrl` then sends. The same steps
 * as the sign-in tests (`__tests__/helpers/sign-in-server.ts`), reused rather than copied.
 *
 * @param mcpUrl - the router's mount URL, `http://127.0.0.1:<port>/mcp`: its issuer and resource
 * @throws when any step answers other than a sign-in that succeeds
 */
export async function signInForBench(mcpUrl: string): Promise<string> {
  const { client_id: clientId } = await registerClient(mcpUrl, [REDIRECT_URI]);
  const { verifier, challenge } = pkce();
  const code = await codeFor(mcpUrl, clientId, REDIRECT_URI, challenge);
  const reply = await tokenRequest(mcpUrl, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT_URI,
    client_id: clientId,
    code_verifier: verifier,
    resource: mcpUrl,
  });
  const token = reply.body.access_token;
  if (reply.status !== 200 || typeof token !== 'string')
    throw new Error(`the token endpoint answered ${reply.status}: ${JSON.stringify(reply.body).slice(0, 300)}`);
  return token;
}
