// The public surface of express-mcp-router: named re-exports only. (Each subpath has its own index.ts: redis/, payments/, decorators/.)

// The factory, its options and the router type it returns. The defaults are documented on each option (and in the
// README), not exported: a constant exported is one more name to keep, and no caller needs one to set an option.
export { mcpRouter } from './router';
export type { McpRouter, McpRouterApi } from './router-api';
export type { McpRouterOptions } from './options';
export type { SessionOptions } from './session-options';
export type { InputRequiredOptions } from './protocol/modern/request-state';
export type { TelemetryOptions } from './telemetry/telemetry-options';
export type { ListenOptions } from './listen/listen-options';

// Security: bearer auth and its metadata, browser origins, rate limits, per-item access rules.
export type { AuthOptions, ResourceMetadataOptions, StaticToken } from './auth/bearer';
// Sign-in: the router as an OAuth 2.1 authorization server (auth.server), and verifiers of tokens from elsewhere (auth.verify).
export type { AuthServerOptions, ConsentOptions, SignInFunction, SignInResult } from './auth/server/server-options';
export type { ConsentDetails } from './auth/server/consent-page';
export type {
  ClientMetadataDocumentOptions,
  ClientsOptions,
  PreRegisteredClient,
  RegistrationOptions,
} from './auth/server/client-options';
export type { SigningKeysOptions } from './auth/server/keys';
export { oidcUpstream } from './auth/server/oidc-upstream';
export type { OidcUpstreamOptions, UpstreamTokenAuthMethod } from './auth/server/oidc-upstream-options';
export type { UpstreamTokens } from './auth/server/upstream-tokens';
export type { Identity, LoginCallback, LoginRequest, LoginStep } from './auth/server/login';
export { jwtVerifier, type JwtVerifierOptions, type JsonWebKeySet } from './auth/verifiers/jwt-verifier';
export { introspectionVerifier, type IntrospectionVerifierOptions } from './auth/verifiers/introspection-verifier';
export type { SignInKind, SignInLimits, SignInRecord, SignInStore } from './store/sign-in-store';
export type { OriginsOption } from './security/origin-host';
export type { AccessRule } from './registry/access';
// Skills (SEP-2640): mcp.skills() serves a folder of Agent Skills.
export type { McpSkill } from './skills/serve-skills';
export type { SkillsOptions } from './skills/skills-options';
export type { CallLimitOptions } from './registry/call-limit';
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
} from './registry/guards';
export type { ResponseMode } from './http/accept';
export type { UpstreamHandle, UpstreamState, UpstreamStatus } from './gateway/upstream';
export type { NameMatcher, UpstreamHeaders, UpstreamOptions, UpstreamToolsOptions } from './gateway/upstream-options';
export type { UpstreamLimitsOptions } from './gateway/upstream-limits';
export type { UpstreamRoot } from './gateway/upstream-roots';
export type { StdioUpstreamOptions, UpstreamEnv } from './gateway/stdio-options';
// The router's ledger of one-use payments (`call.payments`), for a store or a payment guard of one's own.
export type { PaymentClaim, PaymentHold, PaymentLedger, PaymentTerms } from './registry/payment-ledger';

// The `store` option: everything several instances share (express-mcp-router/redis implements it), and its failure.
export {
  StoreUnavailableError,
  type McpStore,
  type SharedSessionSettings,
  type SharedTaskSettings,
} from './store/shared-store';
export type { ServerEvent, ServerEventBus } from './store/server-events';
export type { ChangedList } from './registry/registry';
// Sessions: the storage interfaces and their in-memory defaults (swap in shared ones for several instances).
export type {
  EventStore,
  MessageBus,
  SessionCloseReason,
  SessionRecord,
  SessionStore,
  StoredEvent,
} from './store/session-stores';
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
} from './jsonrpc/types';
export { MemorySessionStore, type MemorySessionStoreOptions } from './store/memory-session-store';
export { MemoryEventStore, type MemoryEventStoreOptions } from './store/memory-event-store';
export { MemoryMessageBus, type MemoryMessageBusOptions } from './store/memory-message-bus';
export type { McpLogger } from './logger';
export type { TaskInputRequest, TaskRecord, TaskStatus, TaskStore } from './protocol/tasks/task-store';
export { MemoryTaskStore, type MemoryTaskStoreOptions } from './protocol/tasks/memory-task-store';
export type { TaskOptions } from './protocol/tasks/task-options';

// Errors: McpConfigError at boot; JsonRpcError for handlers that want a specific JSON-RPC error.
export { McpConfigError, type McpConfigErrorCode } from './config-error';
export { ErrorCode, JsonRpcError, type ErrorCodeValue, type JsonRpcErrorObject } from './jsonrpc/errors';

// What handlers receive and what registrations look like.
export type { AuthInfo, ClientRequestOptions, LogLevel, RequestContext } from './registry/request-context';
// Protocol revisions: `eras` and `ctx.era` name an Era, `ctx.protocolVersion` a Revision, a session record a ProtocolVersion.
export type { Era, ProtocolVersion, Revision } from './versions';
export type { CacheHintOptions, CacheScope } from './registry/cache-hint';
export type { Icon, McpRegistration } from './registry/definition';
export type { CallToolResult, JsonSchema, TaskSupport, ToolAnnotations, ToolDefinition } from './registry/tools';
export type {
  ReadResourceResult,
  ResourceContentInput,
  ResourceDefinition,
  ResourceTemplateDefinition,
  ResourceValue,
} from './registry/resources';
export type { GetPromptResult, PromptArgument, PromptDefinition, PromptMessage, PromptValue } from './registry/prompts';
export type { Completer, CompletionContext, CompletionResult } from './registry/completion';
export type { InferSchema, InferToolArgs } from './schema/infer';

// Existing Express routes and controller classes as tools (mcp.route, mcp.exposeRoutes, mcp.exposeOpenApi, mcp.register).
export type { BridgedRouteMeta, RouteToolMeta } from './bridge/route-tool';
export type { RouteInput } from './bridge/input';
export type { RouteTarget } from './bridge/dispatch';

// MCP Apps (SEP-1865): a page of the app as a tool's interface (mcp.app, and `ui` on tools and routes).
export type { McpAppOptions, McpAppRegistration } from './apps/apps';
export type { McpAppCsp, McpAppPermissions } from './apps/app-ui-meta';
export type { ToolUiLink, UiVisibility } from './registry/ui-link';

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
} from './registry/content';
