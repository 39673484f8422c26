// A route as a tool: arguments → an in-process request through Express (light-my-request), response → tool result.

import type { ServerResponse } from 'node:http';
import { invalidOption, type OptionKeys } from '../../options/config-error';
import type { RequestContext } from '../../core/registry/request-context';
import { itemLabel, rejectUnknownDefinitionKeys } from '../../core/registry/definition';
import { TOOL_NESTED_KEYS } from '../../core/registry/tool-definition';
import { errorResult, type ToolDefinition, type ToolMode } from '../../core/registry/tools';
import { wrapsOutput } from '../../core/registry/tool-schemas';
import { DEFAULT_ROUTE_TIMEOUT_MS, dispatchInProcess, type RequestDispatcher } from '../../edge/host-routes/in-process';
import type { BridgedRouteMeta, RouteToolMeta } from '../../edge/host-routes/route-tool-meta';
import { inputLayoutFor, ROUTE_INPUT_KEYS } from './input';
import { annotationsFor, toolNameFor } from './route-names';
import { compilePath } from './path-values';
import { toToolResult } from './result';

/** Every key of a route's tool meta (`exposeRoutes` entries besides `method` and `path`). */
const ROUTE_META_KEYS: OptionKeys<RouteToolMeta> = {
  name: true,
  title: true,
  description: true,
  icons: true,
  _meta: true,
  input: true,
  layout: true,
  output: true,
  annotations: true,
  forwardHeaders: true,
  timeoutMs: true,
  rateLimit: true,
  guards: true,
  ui: true,
  scopes: true,
  canAccess: true,
};
/** Every key of `mcp.route()`'s meta. */
const BRIDGED_ROUTE_KEYS: OptionKeys<BridgedRouteMeta> = { ...ROUTE_META_KEYS, method: true, path: true };
/** The nested options of a route's meta that are this router's: their keys are checked too. */
const ROUTE_NESTED_KEYS = { ...TOOL_NESTED_KEYS, input: ROUTE_INPUT_KEYS };

/** A route's method and path are strings: checked before either names or traces anything. */
export function checkRouteTarget(method: unknown, path: unknown, item: string): void {
  if (typeof method !== 'string') throw invalidOption('method', 'an HTTP method', method, item);
  if (typeof path !== 'string') throw invalidOption('path', 'a path', path, item);
}

/**
 * Checks a route's meta as `mcp.tool()` checks a definition: its keys (and those of its `input`, `ui` or
 * `rateLimit`), a description, and the types of `method`, `path` and `forwardHeaders`. `mcp.route()` checks when it
 * is called, though its tool may be registered only on the first request.
 *
 * @param item - names the route's tool in the message
 * @param bridged - whether `method` and `path` are keys of the meta (`mcp.route()`), not given beside it
 * @throws {McpConfigError} `ERR_MCP_UNKNOWN_OPTION` for an unknown key, `ERR_MCP_INVALID_OPTION` for a bad value
 */
export function checkRouteMeta(meta: object, item: string, bridged: boolean): void {
  if (typeof meta !== 'object' || meta === null) throw invalidOption('meta', '{ description, … }', meta, item);
  const keys = bridged ? BRIDGED_ROUTE_KEYS : ROUTE_META_KEYS;
  rejectUnknownDefinitionKeys(meta as Record<string, unknown>, keys, item, ROUTE_NESTED_KEYS);
  const { description, method, path, forwardHeaders } = meta as Partial<BridgedRouteMeta>;
  if (typeof description !== 'string' || description.trim() === '')
    throw invalidOption('description', 'a non-empty string', description, item);
  checkRouteTarget(method ?? '', path ?? '', item);
  if (
    forwardHeaders !== undefined &&
    !(Array.isArray(forwardHeaders) && forwardHeaders.every((h) => typeof h === 'string'))
  )
    throw invalidOption('forwardHeaders', 'an array of header names', forwardHeaders, item);
}

/** A route's tool, and how the registry serves it (its arguments as the wire carries them, before the schema). */
export interface RouteTool {
  readonly definition: ToolDefinition;
  readonly mode: ToolMode;
}

function queryString(query: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value])
      search.append(name, typeof item === 'object' ? JSON.stringify(item) : String(item));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/** A streamed response (`res.write`) is collected; each chunk is reported as progress when the caller asked for it. */
function reportWrites(res: ServerResponse, ctx: RequestContext): void {
  const write = res.write as (...args: unknown[]) => boolean;
  let chunks = 0;
  let bytes = 0;
  res.write = function (this: ServerResponse, ...args: unknown[]): boolean {
    const [chunk] = args;
    bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk instanceof Uint8Array ? chunk.byteLength : 0;
    void ctx.progress(++chunks, undefined, `${bytes} bytes received`);
    return write.apply(this, args);
  } as ServerResponse['write'];
}

/**
 * The tool of one route: each call becomes a request dispatched in-process (no network, no Host header, no
 * SSRF) through `dispatch`, so every middleware on the way runs as for a real request; the response becomes
 * the result (4xx → `isError` with the body, 5xx → `isError` without internals). An argument can never change
 * the route that runs: each path value goes, percent-encoded, into its own segment, and one that cannot
 * (`..`, an empty string, a lone surrogate…) is an `isError` result naming it, before anything is dispatched.
 *
 * @throws {McpConfigError} for an unknown key, inputs found in two places, or an Express 4 param pattern that does not compile
 *
 * @example
 * ```ts
 * const { definition, mode } = routeTool({ description: 'Fetch a user' }, 'GET', '/users/:id', asDispatcher(app, logger));
 * registry.addTool(definition, mode);
 * ```
 */
export function routeTool(meta: RouteToolMeta, method: string, path: string, dispatch: RequestDispatcher): RouteTool {
  const name = meta.name ?? toolNameFor(method, path);
  checkRouteMeta(meta, itemLabel('route tool', name), false);
  const template = compilePath(path, `route tool '${name}'`);
  const layout = inputLayoutFor(
    meta.input,
    template.names,
    `route tool '${name}'`,
    meta.layout ?? 'flat',
    template.optional,
  );
  const forwarded = ['authorization', ...(meta.forwardHeaders ?? []).map((header) => header.toLowerCase())];
  const verb = method.toUpperCase();
  const wrapResult = meta.output !== undefined && wrapsOutput(meta.output, `route tool '${name}' output`);
  const definition: ToolDefinition = {
    name,
    title: meta.title,
    description: meta.description,
    inputSchema: layout.schema,
    outputSchema: meta.output,
    annotations: meta.annotations ?? annotationsFor(verb),
    icons: meta.icons,
    _meta: meta._meta,
    scopes: meta.scopes,
    canAccess: meta.canAccess,
    timeoutMs: meta.timeoutMs ?? DEFAULT_ROUTE_TIMEOUT_MS,
    rateLimit: meta.rateLimit,
    guards: meta.guards,
    ui: meta.ui,
    async handler(args: Record<string, unknown>, ctx: RequestContext) {
      const { params, query, body } = layout.split(args);
      const filled = template.fill(params);
      if (!filled.ok) return errorResult(filled.message);
      const headers: Record<string, string> = { accept: 'application/json' };
      const hasBody = body !== undefined && verb !== 'GET' && verb !== 'HEAD';
      if (hasBody) headers['content-type'] = 'application/json';
      const response = await dispatchInProcess(dispatch, {
        method: verb,
        url: filled.path + queryString(query),
        headers,
        forward: forwarded,
        ...(hasBody ? { payload: JSON.stringify(body) } : {}),
        ctx,
        watch: ctx.meta?.progressToken === undefined ? undefined : (res) => reportWrites(res, ctx),
      });
      return toToolResult(response, { toolName: name, wrapResult });
    },
  };
  return { definition, mode: { prepare: layout.wireText } };
}
