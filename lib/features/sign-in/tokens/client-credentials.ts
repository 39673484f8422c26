// The client credentials grant (RFC 6749 §4.4; MCP's client-credentials extension): a machine client's token, with no user.

import type { OAuthClient } from '../clients/client';
import type { Form } from '../parameters';
import { OAuthError } from '../oauth-error';
import type { Grant } from './codes-and-refresh';

/**
 * The grant of a client credentials request from an authenticated client: the client is the subject (the app
 * decides what it may do: scopes, `canAccess`), the tokens are for this server's resource, and the scopes are those
 * asked for that the client may have — all of them when it asks for none. Asking for more gets fewer, not an error
 * (RFC 6749 §3.3: the server may grant a different scope, and says which in the answer): the SDK clients ask for
 * every scope the metadata lists.
 *
 * @param resource - this server's MCP resource; a `resource` naming another is `invalid_target` (RFC 8707 §2)
 * @param supportedScopes - the server's scopes (`auth.server.scopes`)
 * @throws {OAuthError} `unauthorized_client` for a client without the grant or without credentials; `invalid_target`
 */
export function clientCredentialsGrant(
  client: OAuthClient,
  form: Form,
  resource: string,
  supportedScopes: readonly string[],
): Grant {
  if (!client.grantTypes.includes('client_credentials'))
    throw new OAuthError('unauthorized_client', 'the client is not registered for the client_credentials grant');
  // RFC 6749 §4.4: "The client credentials grant type MUST only be used by confidential clients."
  if (client.tokenEndpointAuthMethod === 'none')
    throw new OAuthError('unauthorized_client', 'a public client cannot use the client_credentials grant');
  if (form.resource !== undefined && form.resource.replace(/\/$/, '') !== resource)
    throw new OAuthError('invalid_target', `resource must be this server, ${resource}`);
  const allowed =
    client.scope === undefined
      ? supportedScopes
      : client.scope.split(' ').filter((scope) => supportedScopes.includes(scope));
  const asked = form.scope?.split(' ').filter((scope) => scope !== '');
  const scopes = asked === undefined ? [...allowed] : [...new Set(asked.filter((scope) => allowed.includes(scope)))];
  return { clientId: client.clientId, subject: client.clientId, scopes, resource };
}
