// The pages of this package's docs the auth findings link to, and the fixes several findings give.

/** Sections of docs/ that explain what the auth findings check. */
export const AUTH_DOCS = Object.freeze({
  bearer: 'security.md#bearer-auth',
  signIn: 'security.md#sign-in-oauth',
  serverEndpoints: 'security.md#what-the-authorization-server-serves',
  serverChoices: 'security.md#security-choices',
  cors: 'security.md#browsers-origins-and-cors',
  deployment: 'deployment.md#deployment',
});

/** The fix for URLs that name the wrong scheme or host: what the app behind a proxy must be told. */
export const PUBLIC_URL_FIX =
  "Build the URLs from the public address clients use: behind a TLS-terminating proxy, `app.set('trust proxy', 1)` so the " +
  'router reads the scheme and host the proxy forwards (`X-Forwarded-Proto`, `X-Forwarded-Host`), list the public names in ' +
  "`allowedHosts`, or set the router's `publicUrl` option to the public endpoint URL. Another server must name its public " +
  'https URL in these places.';

/** The fix for metadata only at the mount path: the one line that serves it where RFC 9728 §3.1 puts it too. */
export const ROOT_METADATA_FIX =
  "Serve the metadata at the root too: `app.use('/.well-known/oauth-protected-resource', mcp.authMetadata)` serves " +
  '`/.well-known/oauth-protected-resource/<mount path>` (another server: answer GET there with the same document).';
