// OAuth sign-in for the playground: discovery from the MCP endpoint's 401, Dynamic Client Registration as a public
// client whose redirect URI is this page, the authorization-code flow with PKCE by redirect, and the code exchanged
// for an access token (MCP authorization, 2025-11-25).

/** What survives the trip to the authorization server and back: this tab only (sessionStorage). */
const PENDING_KEY = 'mcp-playground.oauth';

const base64url = (bytes) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
const randomString = () => base64url(crypto.getRandomValues(new Uint8Array(32)));

async function getJson(url, init) {
  const response = await fetch(url, init);
  const body = await response.json().catch(() => undefined);
  return { response, body };
}

/** RFC 9728: the protected-resource metadata the endpoint's 401 names (`resource_metadata`). */
async function resourceMetadata(endpoint) {
  const probe = await fetch(endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'sign-in', method: 'ping' }),
  });
  const challenge = probe.headers.get('WWW-Authenticate') ?? '';
  const url = /resource_metadata="([^"]+)"/.exec(challenge)?.[1];
  if (probe.status !== 401 || url === undefined)
    throw new Error(`${endpoint} does not ask for sign-in (HTTP ${probe.status}${challenge ? `, ${challenge}` : ''})`);
  const { response, body } = await getJson(url);
  if (!response.ok || !Array.isArray(body?.authorization_servers) || body.authorization_servers.length === 0)
    throw new Error(`${url} names no authorization server`);
  return body;
}

/** RFC 8414 §3.1 path insertion first, then OpenID discovery (both forms), as the MCP SDK clients try them. */
async function serverMetadata(issuer) {
  const { origin, pathname } = new URL(issuer);
  const path = pathname === '/' ? '' : pathname.replace(/\/$/, '');
  const urls =
    path === ''
      ? [`${origin}/.well-known/oauth-authorization-server`, `${origin}/.well-known/openid-configuration`]
      : [
          `${origin}/.well-known/oauth-authorization-server${path}`,
          `${origin}/.well-known/openid-configuration${path}`,
          `${origin}${path}/.well-known/openid-configuration`,
        ];
  for (const url of urls) {
    const { response, body } = await getJson(url).catch(() => ({ response: undefined }));
    // RFC 8414 §3.3: the issuer in the document must be the one it was looked up for.
    if (response?.ok && body?.issuer === issuer) return body;
  }
  throw new Error(`no authorization server metadata for ${issuer}`);
}

/**
 * Starts signing in to `endpoint`: registers the playground (RFC 7591, a public client) and sends the browser to
 * the authorization endpoint. It comes back to this page with a code, which {@link finishSignIn} redeems.
 */
export async function startSignIn(endpoint) {
  const resource = await resourceMetadata(endpoint);
  const metadata = await serverMetadata(resource.authorization_servers[0]);
  if (!metadata.registration_endpoint)
    throw new Error(`${metadata.issuer} does not let clients register (no registration_endpoint)`);
  const redirectUri = `${location.origin}${location.pathname}`;
  const registered = await getJson(metadata.registration_endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      client_name: 'MCP playground',
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'],
      response_types: ['code'],
    }),
  });
  if (!registered.response.ok)
    throw new Error(
      `registration refused (HTTP ${registered.response.status}): ${registered.body?.error_description ?? registered.body?.error ?? ''}`,
    );
  const verifier = randomString();
  const state = randomString();
  const challenge = base64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  const pending = {
    endpoint,
    resource: resource.resource ?? endpoint,
    issuer: metadata.issuer,
    tokenEndpoint: metadata.token_endpoint,
    clientId: registered.body.client_id,
    redirectUri,
    verifier,
    state,
  };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const url = new URL(metadata.authorization_endpoint);
  const scopes = resource.scopes_supported ?? metadata.scopes_supported ?? [];
  const params = {
    response_type: 'code',
    client_id: pending.clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
    resource: pending.resource,
    ...(scopes.length > 0 && { scope: scopes.join(' ') }),
  };
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  location.assign(url.href);
}

/**
 * On the way back from the authorization server: checks the response against the request this tab made (state,
 * RFC 9207 `iss`), redeems the code with the PKCE verifier, and cleans the URL. Undefined when this page load is
 * not such a return.
 *
 * @returns {Promise<{ endpoint: string, accessToken: string } | undefined>}
 */
export async function finishSignIn() {
  const params = new URLSearchParams(location.search);
  if (!params.has('code') && !params.has('error')) return undefined;
  const pending = JSON.parse(sessionStorage.getItem(PENDING_KEY) ?? 'null');
  sessionStorage.removeItem(PENDING_KEY);
  // The code stays out of the history and out of any link copied from the address bar.
  history.replaceState(null, '', `${location.pathname}${location.hash}`);
  if (pending === null || params.get('state') !== pending.state)
    throw new Error('this sign-in answer is not for a request from this tab: sign in again');
  if (params.has('iss') && params.get('iss') !== pending.issuer)
    throw new Error(`the answer comes from ${params.get('iss')}, not ${pending.issuer}`);
  if (params.has('error'))
    throw new Error(
      `sign-in refused: ${params.get('error')}${params.has('error_description') ? ` (${params.get('error_description')})` : ''}`,
    );
  const { response, body } = await getJson(pending.tokenEndpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: params.get('code'),
      redirect_uri: pending.redirectUri,
      client_id: pending.clientId,
      code_verifier: pending.verifier,
      resource: pending.resource,
    }),
  });
  if (!response.ok || typeof body?.access_token !== 'string')
    throw new Error(
      `the token endpoint refused the code (HTTP ${response.status}): ${body?.error_description ?? body?.error ?? ''}`,
    );
  return { endpoint: pending.endpoint, accessToken: body.access_token };
}
