// The public surface of express-mcp-router: named re-exports only. (Each subpath has its own index.ts: redis/, payments/, decorators/.)

// The factory, its options and the router type it returns. The defaults are documented on each option (and in the
// README), not exported: a constant exported is one more name to keep, and no caller needs one to set an option.
export { mcpRouter } from './router';
export type { McpRouter, McpRouterApi } from './router-api';
export type { McpRouterOptions } from './options';
export type { SessionOptions } from './edge/sessions/session-options';
export type { InputRequiredOptions } from './core/protocol/era-2026/request-state';
export type { TelemetryOptions } from './features/telemetry/telemetry-options';
// Experimental: the draft MCP Server Card (SEP-2127) the `serverCard` option serves.
export type { ServerCardOptions, ServerCardRepository } from './features/server-card/card-options';
export type { ListenOptions } from './edge/listen/listen-options';

// Security: bearer auth and its metadata, browser origins, rate limits, per-item access rules.
export type { AuthOptions } from './options';
export type { ResourceMetadataOptions, StaticToken } from './edge/security/bearer';
// The `auth.dpop` option's type: how DPoP-bound tokens' proofs are checked (RFC 9449).
export type { DpopOptions } from './edge/security/dpop-options';
// Sign-in: the router as an OAuth 2.1 authorization server (auth.server), and verifiers of tokens from elsewhere (auth.verify).
export type {
  AuthServerOptions,
  ConsentOptions,
  SignInFunction,
  SignInResult,
} from './features/sign-in/server-options';
export type { ConsentDetails } from './features/sign-in/browser/consent-page';
export type {
  ClientGrant,
  ClientMetadataDocumentOptions,
  ClientsOptions,
  PreRegisteredClient,
  RegistrationOptions,
} from './features/sign-in/clients/client-options';
export type { SigningKeysOptions } from './features/sign-in/tokens/keys';
export type {
  EnterprisePrincipal,
  MapIdentity,
  MapIdentityContext,
  TrustedIdpOptions,
  TrustedIdpsOptions,
} from './features/sign-in/trusted-idp-options';
export { oidcUpstream } from './features/sign-in/idp/oidc-idp';
// The IdP's types under their public names (the option is `auth.server.upstream`, the record `ctx.auth.extra.upstream`).
export type {
  OidcUpstreamOptions,
  IdpTokenAuthMethod as UpstreamTokenAuthMethod,
} from './features/sign-in/idp/oidc-idp-options';
export type { IdpTokens as UpstreamTokens } from './features/sign-in/idp/idp-tokens';
export type { Identity, LoginCallback, LoginRequest, LoginStep } from './features/sign-in/browser/login';
export { jwtVerifier, type JwtVerifierOptions, type JsonWebKeySet } from './features/verifiers/jwt-verifier';
export { introspectionVerifier, type IntrospectionVerifierOptions } from './features/verifiers/introspection-verifier';
export type { SignInKind, SignInLimits, SignInRecord, SignInStore } from './edge/store/sign-in-store';
export type { OriginsOption } from './edge/security/origin-host';
export type { AccessRule } from './core/registry/access';
// Skills (SEP-2640): mcp.skills() serves a folder of Agent Skills.
export type { McpSkill } from './features/skills/serve-skills';
export type { SkillsOptions } from './features/skills/skills-options';
export type { CallLimitOptions } from './core/registry/call-limit';
// Guards: one chain around every tool call, resource read and prompt get (router-wide and per item).
export {
  guardFor,
  type Guard,
  type GuardCall,
  type GuardKind,
  type GuardResult,
  type PromptGuard,
  type PromptGuardCall,
  type ResourceGuard,
  type ResourceGuardCall,
  type ToolGuard,
  type ToolGuardCall,
} from './core/registry/guards';
export type { ResponseMode } from './edge/http/accept';
export type { UpstreamHandle, UpstreamState, UpstreamStatus } from './features/gateway/mount/upstream';
export type {
  NameMatcher,
  UpstreamHeaders,
  UpstreamOptions,
  UpstreamToolsOptions,
} from './features/gateway/mount/upstream-options';
export type { UpstreamLimitsOptions } from './features/gateway/mount/upstream-limits';
export type { UpstreamRoot } from './features/gateway/mount/upstream-roots';
export type { StdioUpstreamOptions, UpstreamEnv } from './features/gateway/stdio/stdio-options';
// Per-caller tokens for upstreams (RFC 8693): an upstream's `auth`.
export {
  tokenExchange,
  type ClientSecretAuth,
  type PrivateKeyJwtAuth,
  type TokenExchange,
  type TokenExchangeOptions,
} from './features/gateway/exchange/token-exchange';
// The router's ledger of one-use payments (`call.payments`), for a store or a payment guard of one's own.
export type { PaymentClaim, PaymentHold, PaymentLedger, PaymentTerms } from './core/registry/payment-ledger';

// The `store` option: everything several instances share (express-mcp-router/redis implements it), and its failure.
export {
  StoreUnavailableError,
  type McpStore,
  type SharedSessionSettings,
  type SharedTaskSettings,
} from './edge/store/shared-store';
export type { ServerEvent, ServerEventBus } from './edge/store/server-events';
export type { ChangedList } from './core/registry/registry';
// Sessions: the storage interfaces and their in-memory defaults (swap in shared ones for several instances).
export type {
  EventStore,
  MessageBus,
  SessionCloseReason,
  SessionRecord,
  SessionStore,
  StoredEvent,
} from './edge/store/session-stores';
// What an EventStore records and a MessageBus carries, for a store of one's own.
export type {
  JsonRpcFailure,
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcNotification,
  JsonRpcParams,
  JsonRpcRequest,
  JsonRpcResponse,
  JsonRpcSuccess,
} from './core/jsonrpc/types';
export { MemorySessionStore, type MemorySessionStoreOptions } from './edge/store/memory-session-store';
export { MemoryEventStore, type MemoryEventStoreOptions } from './edge/store/memory-event-store';
export { MemoryMessageBus, type MemoryMessageBusOptions } from './edge/store/memory-message-bus';
export type { McpLogger } from './core/logger';
export type { TaskInputRequest, TaskRecord, TaskStatus, TaskStore } from './core/protocol/tasks/task-store';
export { MemoryTaskStore, type MemoryTaskStoreOptions } from './core/protocol/tasks/memory-task-store';
export type { TaskOptions } from './core/protocol/tasks/task-options';

// Errors: McpConfigError at boot; JsonRpcError for handlers that want a specific JSON-RPC error.
export { McpConfigError, type McpConfigErrorCode } from './options/config-error';
export { ErrorCode, JsonRpcError, type ErrorCodeValue, type JsonRpcErrorObject } from './core/jsonrpc/errors';

// What handlers receive and what registrations look like.
export type { AuthInfo, ClientRequestOptions, LogLevel, RequestContext } from './core/registry/request-context';
// Protocol revisions: `eras` and `ctx.era` name an Era, `ctx.protocolVersion` a Revision, a session record a ProtocolVersion.
export type { Era, ProtocolVersion, Revision } from './core/versions';
export type { CacheHintOptions, CacheScope } from './core/registry/cache-hint';
export type { Icon, McpRegistration } from './core/registry/definition';
export type { CallToolResult, JsonSchema, TaskSupport, ToolAnnotations, ToolDefinition } from './core/registry/tools';
export type {
  ReadResourceResult,
  ResourceContentInput,
  ResourceDefinition,
  ResourceTemplateDefinition,
  ResourceValue,
} from './core/registry/resources';
export type {
  GetPromptResult,
  PromptArgument,
  PromptDefinition,
  PromptMessage,
  PromptValue,
} from './core/registry/prompts';
export type { Completer, CompletionContext, CompletionResult } from './core/registry/completion';
export type { InferSchema, InferToolArgs } from './core/schema/infer';

// Existing Express routes and controller classes as tools (mcp.route, mcp.exposeRoutes, mcp.exposeOpenApi, mcp.register).
export type { BridgedRouteMeta, RouteInput, RouteToolMeta } from './edge/host-routes/route-tool-meta';
export type { RouteTarget } from './edge/host-routes/host-dispatch';

// MCP Apps (SEP-1865): a page of the app as a tool's interface (mcp.app, and `ui` on tools and routes).
export type { McpAppOptions, McpAppRegistration } from './features/apps/apps';
export type { McpAppCsp, McpAppPermissions } from './features/apps/app-ui-meta';
export type { ToolUiLink, UiVisibility } from './core/registry/ui-link';

// Content helpers for tool results and prompt messages.
export {
  audioContent,
  embeddedResource,
  imageContent,
  resourceLink,
  textContent,
  type AudioContent,
  type BinaryData,
  type ContentAnnotations,
  type ContentBlock,
  type EmbeddedResource,
  type ImageContent,
  type ResourceContents,
  type ResourceLink,
  type TextContent,
} from './core/registry/content';
