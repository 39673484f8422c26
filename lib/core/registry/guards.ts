// Guards: one chain around every tool call, resource read and prompt get, composed once when an item is registered.

import { McpConfigError } from '../../options/config-error';
import { eraPolicy } from '../era-policy';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import { isObject } from '../jsonrpc/types';
import type { PaymentLedger } from './payment-ledger';
import type { RequestContext } from './request-context';
import type { Era } from '../versions';
import type { CallToolResult, GetPromptResult, ReadResourceResult, ToolDescriptor } from './results';

/** What a guard can be around: a tool call (`tools/call`), a resource read (`resources/read`), a prompt get (`prompts/get`). */
export type GuardKind = 'tool' | 'resource' | 'prompt';

interface GuardCallFields {
  /** The tool's or prompt's name; a resource's `name` (the requested URI is `uri`). */
  readonly name: string;
  /** The request's `_meta` (`params._meta`), as sent: where a payment or a progress token travels. */
  readonly meta: Readonly<Record<string, unknown>> | undefined;
  /** The request context the handler gets too (`auth`, `sessionId`, `signal`, `headers`, …). */
  readonly ctx: RequestContext;
}

/** A tool call, as guards see it. */
export interface ToolGuardCall extends GuardCallFields {
  /** What is called: a tool (`tools/call`). */
  readonly kind: 'tool';
  /** The arguments, checked against the tool's `inputSchema` (guards run after that check). */
  readonly arguments: Readonly<Record<string, unknown>>;
  /** The tool's `tools/list` entry (frozen): `inputSchema`, `outputSchema`, `annotations`, `_meta`, … */
  readonly descriptor: ToolDescriptor;
  /**
   * The router's ledger of one-use payments, the same for every tool of the router (and, with a shared `store`,
   * every instance): a payment guard claims a payment here, so one payment pays for one call whichever guard sees
   * it. Undefined when a guard is called outside a router.
   */
  readonly payments?: PaymentLedger;
}

/** A resource read, as guards see it. */
export interface ResourceGuardCall extends GuardCallFields {
  /** What is called: a resource (`resources/read`). */
  readonly kind: 'resource';
  /** The URI being read. */
  readonly uri: string;
  /** The template variables matched in `uri` (none for a static resource). */
  readonly arguments: Readonly<Record<string, string>>;
  /** The `resources/list` or `resources/templates/list` entry (frozen). */
  readonly descriptor: Readonly<Record<string, unknown>>;
}

/** A prompt get, as guards see it. */
export interface PromptGuardCall extends GuardCallFields {
  /** What is called: a prompt (`prompts/get`). */
  readonly kind: 'prompt';
  /** The prompt's declared arguments the client sent, checked (required ones present, all strings). */
  readonly arguments: Readonly<Record<string, string>>;
  /** The `prompts/list` entry (frozen). */
  readonly descriptor: Readonly<Record<string, unknown>>;
}

/**
 * Any call a guard can see; `kind` tells them apart.
 *
 * @example
 * ```ts
 * const audit: Guard = (call, next) => {
 *   const seen: GuardCall = call;
 *   log.info({ kind: seen.kind, name: seen.name, uri: seen.kind === 'resource' ? seen.uri : undefined, who: seen.ctx.auth?.subject });
 *   return next();
 * };
 * ```
 */
export type GuardCall = ToolGuardCall | ResourceGuardCall | PromptGuardCall;

/** The result of a call of kind `K`: what `next()` resolves with and what a guard returns. */
export type GuardResult<K extends GuardKind = GuardKind> = K extends 'tool'
  ? CallToolResult
  : K extends 'resource'
    ? ReadResourceResult
    : GetPromptResult;

/** The call of kind `K` as guards see it. */
export type GuardCallOf<K extends GuardKind> = Extract<GuardCall, { readonly kind: K }>;

/** A guard of calls of kind `K`: `call` and `next()` typed for that kind. See {@link Guard}. */
export type GuardOf<K extends GuardKind> = (
  call: GuardCallOf<K>,
  next: () => Promise<GuardResult<K>>,
) => GuardResult<K> | Promise<GuardResult<K>>;

/**
 * A link of the chain around every call (Koa-style middleware), for the router's `guards` and any item's. It
 * may let the call through (`return next()`), end it with a JSON-RPC error (`throw new JsonRpcError(…)`), or
 * act after the item ran (`const result = await next(); …; return result`). `next()` runs the rest of the chain
 * once; a second call is refused with an error. Any other throw ends a tool call with an `isError` result, as
 * a throwing tool handler does (and outer guards see that result); on a resource or prompt it is an internal
 * error (-32603, logged), as a throwing `read` or `get` is.
 *
 * Order of a call (one pipeline, registry/item-pipeline.ts): *admission* — access (`scopes`, `canAccess`) → (2026
 * tools) `Mcp-Param-*` headers → (tools that may run as tasks) the task negotiation → argument checks → the tool's
 * `rateLimit` → the router's `guards` → the item's `guards` — then *run* — (a call that runs as a task becomes one
 * here) → the tool's `timeoutMs` → the handler → its result converted (and checked against `outputSchema`).
 * Admission is answered at once, never from a task. An after step sees the final result, an `isError` one included.
 *
 * A `Guard` works for every kind, so it goes anywhere: in the router's `guards` and in any item's. A guard
 * that ends calls with results of its own, or reads a kind's result, is written for that kind: {@link ToolGuard}
 * (on a tool, or router-wide through {@link guardFor}), {@link ResourceGuard}, {@link PromptGuard}. To read a
 * kind's own fields in a `Guard`, widen first: `const seen: GuardCall = call; if (seen.kind === 'resource') seen.uri`.
 *
 * @example
 * ```ts
 * // Router-wide: calls of a blocked principal end with a JSON-RPC error; every call is timed.
 * const blocklist: Guard = async (call, next) => {
 *   if (blocked.has(call.ctx.auth?.subject ?? '')) throw new JsonRpcError(ErrorCode.InvalidRequest, 'Blocked');
 *   const started = performance.now();
 *   const result = await next();
 *   metrics.observe(call.kind, call.name, performance.now() - started);
 *   return result;
 * };
 * mcpRouter({ name: 'shop', version: '1.0.0', guards: [blocklist] });
 * ```
 */
export type Guard = <K extends GuardKind>(
  call: GuardCall & { readonly kind: K },
  next: () => Promise<GuardResult<K>>,
) => GuardResult<K> | Promise<GuardResult<K>>;

/**
 * A guard of tool calls (`guards` of `mcp.tool()`, or router-wide as `guardFor('tool', g)`).
 *
 * @example
 * ```ts
 * const quota: ToolGuard = async (call, next) => {
 *   if (!(await credits.take(call.ctx.auth?.subject))) return { content: [{ type: 'text', text: 'Out of credits' }], isError: true };
 *   const result = await next();
 *   return result.isError ? result : { ...result, _meta: { ...result._meta, 'example/credits': await credits.left(call.ctx.auth?.subject) } };
 * };
 * mcp.tool({ name: 'search', description: 'Search the catalogue', guards: [quota], handler });
 * ```
 */
export type ToolGuard = GuardOf<'tool'>;
/**
 * A guard of resource reads (`guards` of `mcp.resource()` and `mcp.resourceTemplate()`).
 *
 * @example
 * ```ts
 * const ownProfileOnly: ResourceGuard = (call, next) => {
 *   if (call.arguments.id !== call.ctx.auth?.subject) throw new JsonRpcError(ErrorCode.ResourceNotFound, 'Resource not found', { uri: call.uri });
 *   return next();
 * };
 * mcp.resourceTemplate({ uriTemplate: 'users://{id}/profile', name: 'profile', guards: [ownProfileOnly], read });
 * ```
 */
export type ResourceGuard = GuardOf<'resource'>;
/**
 * A guard of prompt gets (`guards` of `mcp.prompt()`).
 *
 * @example
 * ```ts
 * const house: PromptGuard = async (call, next) => {
 *   const result = await next();
 *   return { ...result, messages: [{ role: 'user', content: { type: 'text', text: 'Follow the house style.' } }, ...result.messages] };
 * };
 * mcp.prompt({ name: 'review', arguments: [{ name: 'code', required: true }], guards: [house], get });
 * ```
 */
export type PromptGuard = GuardOf<'prompt'>;

/**
 * A guard of one kind as a {@link Guard}, for the router's `guards`: it sees the calls of that kind; the others
 * go past it.
 *
 * @throws {McpConfigError} when `guard` is not a function
 * @example
 * ```ts
 * mcpRouter({ name: 'shop', version: '1.0.0', guards: [guardFor('tool', quota)] }); // every tool, no resource or prompt
 * ```
 */
export function guardFor<K extends GuardKind>(kind: K, guard: GuardOf<K>): Guard {
  if (typeof guard !== 'function')
    throw new McpConfigError('ERR_MCP_INVALID_DEFINITION', `guardFor('${kind}', …) needs a guard function`);
  const typed = guard as unknown as Guard;
  return function kindGuard(call, next) {
    const { kind: called }: GuardCall = call;
    return called === kind ? typed(call, next) : next();
  };
}

/**
 * The error of an item that does not exist, and of one the caller may not use: the two must look alike.
 *
 * @param key - the tool's or prompt's name, or the resource URI that was asked for
 */
export function notFoundError(kind: GuardKind, key: string, era: Era): JsonRpcError {
  switch (kind) {
    // MCP tools › Error Handling: an unknown tool is a protocol error (-32602), not an isError result.
    case 'tool':
      return new JsonRpcError(ErrorCode.InvalidParams, `Unknown tool: ${key}`);
    // MCP resources › Error Handling: unknown resource → -32002 with the URI in data; MCP 2026-07-28 (SEP-2164): -32602.
    case 'resource':
      return new JsonRpcError(eraPolicy(era).resourceNotFoundCode, 'Resource not found', { uri: key });
    // MCP prompts › Error Handling: an unknown prompt is -32602.
    case 'prompt':
      return new JsonRpcError(ErrorCode.InvalidParams, `Unknown prompt: ${key}`);
  }
}

/**
 * What guards on an item add to its list entry's `_meta` (a price, say): each guard function's own `listMeta`
 * property, an object, merged in the order of `guards`; the item's own `_meta` wins on a shared key.
 *
 * @example
 * ```ts
 * const pay = Object.assign(payGuard, { listMeta: { 'example/price': '0.01 USD' } });
 * mcp.tool({ name: 'search', description: '…', guards: [pay], handler }); // tools/list: _meta['example/price']
 * ```
 */
export function guardsListMeta(
  guards: unknown,
  own: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (!Array.isArray(guards)) return own;
  const added = guards.flatMap((guard: unknown) => {
    const meta: unknown = typeof guard === 'function' ? (guard as { listMeta?: unknown }).listMeta : undefined;
    return isObject(meta) ? [meta] : [];
  });
  return added.length === 0 ? own : (Object.assign({}, ...added, own) as Record<string, unknown>);
}

/** What a `guards` list must be, as the errors of the router's option and of an item's field say it. */
export const GUARD_LIST_EXPECTED = 'an array of guard functions (call, next) => result';

/** Whether `value` can be a `guards` option: an array of functions (what each does is up to it). */
export function isGuardList(value: unknown): value is readonly unknown[] {
  return Array.isArray(value) && value.every((guard) => typeof guard === 'function');
}
