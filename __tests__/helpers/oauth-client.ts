// An OAuth client provider for the SDK clients (v1 and v2 share the interface), kept in memory: what a real client keeps on disk.

import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';

/** Keeps the client's registration, tokens and PKCE verifier; records the authorization URLs it is sent to. */
export class MemoryOAuthProvider implements OAuthClientProvider {
  /** Every authorization URL the SDK asked to open, latest last. */
  readonly authorizationUrls: URL[] = [];
  registered: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  private verifier = '';

  /**
   * @param redirect - the client's redirect URI (the flow stops there; nothing need listen)
   * @param clientMetadataUrl - a Client ID Metadata Document URL, for CIMD instead of registration
   */
  constructor(
    private readonly redirect: string,
    readonly clientMetadataUrl?: string,
  ) {}

  get redirectUrl(): string {
    return this.redirect;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Test Client',
      redirect_uris: [this.redirect],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.registered;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.registered = info;
  }

  tokens(): OAuthTokens | undefined {
    return this.saved;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrls.push(url);
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }

  /** SDK v2 keeps what discovery found (the issuer) to check the callback against it (SEP-2352). */
  private discovery: unknown;

  saveDiscoveryState(state: unknown): void {
    this.discovery = state;
  }

  discoveryState(): never {
    return this.discovery as never;
  }
}
