// How a route of the host app is described as a tool: the meta a route tool takes, and the way one is registered.

import type { AccessRule } from '../../core/registry/access';
import type { CallLimitOptions } from '../../core/registry/call-limit';
import type { Icon, McpRegistration } from '../../core/registry/definition';
import type { ToolGuard } from '../../core/registry/guards';
import type { JsonSchema, ToolAnnotations } from '../../core/registry/tools';
import type { ToolUiLink } from '../../core/registry/ui-link';
import type { DEFAULT_ROUTE_TIMEOUT_MS, RequestDispatcher } from './in-process';

/** The declared inputs of a route, by where they go in the HTTP request. */
export interface RouteInput {
  /** Path parameters (strings); derived from the route path when not declared. */
  params?: JsonSchema;
  /** Query parameters. */
  query?: JsonSchema;
  /** The JSON body: an object schema's properties become arguments; any other body is the argument `body`. */
  body?: JsonSchema;
}

/** How a route becomes a tool. */
export interface RouteToolMeta extends AccessRule {
  /** Defaults to a readable name from method and path (`get_users_by_id`). */
  name?: string;
  /** A display name for people (the tool's `title`); the model reads `description`. Defaults to none. */
  title?: string;
  /** What the route does, for the model. Required. */
  description: string;
  /** Icons a client may show beside the tool (MCP 2025-11-25), as on any tool. Defaults to none. */
  icons?: Icon[];
  /** Extra data listed with the tool, for clients that know its keys, as on any tool. Defaults to none. */
  _meta?: Record<string, unknown>;
  /** Schemas of path params, query and body; path params default to the route path's, as strings. */
  input?: RouteInput;
  /** `flat` merges params, query and body properties into one object; `nested` keeps them apart. Defaults to `flat`. */
  layout?: 'flat' | 'nested';
  /**
   * JSON Schema of a 2xx JSON body: it becomes `outputSchema`, so answers are checked against it as any tool's.
   * A schema that is not an object's (`{ type: 'array' }`) is sent wrapped, and so is the body: `{ result: body }`.
   */
  output?: JsonSchema;
  /** Defaults from the HTTP method: GET → readOnlyHint, PUT → idempotentHint, DELETE → destructiveHint. */
  annotations?: ToolAnnotations;
  /** Request headers of the MCP caller passed on to the route besides `authorization` (lower case). Defaults to none. */
  forwardHeaders?: string[];
  /** A route that has not answered by then gives an `isError` result. Defaults to {@link DEFAULT_ROUTE_TIMEOUT_MS}. */
  timeoutMs?: number;
  /** At most `limit` calls per `windowMs` per caller, as on any tool. Defaults to none. */
  rateLimit?: CallLimitOptions;
  /** Guards around each call, as on any tool (they run before the route is dispatched). Defaults to none. */
  guards?: ReadonlyArray<ToolGuard>;
  /** The MCP App that shows its results, as on any tool (`mcp.app()` first). Defaults to none. */
  ui?: ToolUiLink;
}

/** What `mcp.route()` needs besides {@link RouteToolMeta}: the method (default GET, or POST with a body) and path of the route. */
export interface BridgedRouteMeta extends RouteToolMeta {
  /** The route's HTTP method, any case. Defaults to GET, or POST when the route takes a body. */
  method?: string;
  /** The route's path, for its parameters and the default tool name; defaults to one made of the declared params. */
  path?: string;
}

/** Registers a route as a tool that runs through `dispatch`: every bridge way (and `@tool` on a handler) ends here. */
export type AddRouteTool = (
  meta: RouteToolMeta,
  method: string,
  path: string,
  dispatch: RequestDispatcher,
) => McpRegistration;
