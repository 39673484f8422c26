// Guards: one chain around every tool call, resource read and prompt get, composed once when an item is registered.

import { McpConfigError } from '../errors';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import { isObject } from '../jsonrpc/types';
import { mayUse, type AccessRule } from './access';
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
 * Order of a call: access (`scopes`, `canAccess`) → (2026 tools) `Mcp-Param-*` headers → argument checks → the
 * tool's `rateLimit` → the router's `guards` → the item's `guards` → (a call that runs as a task becomes one here)
 * → the tool's `timeoutMs` → the handler → its result converted (and checked against `outputSchema`). What comes
 * before the task start is the call's admission, answered at once. An after step sees the final result, an
 * `isError` one included.
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
      return new JsonRpcError(
        era === '2026' ? ErrorCode.InvalidParams : ErrorCode.ResourceNotFound,
        'Resource not found',
        { uri: key },
      );
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

/** The rest of a chain, from some link on: a call in, its result out. */
export type Step<C extends GuardCall> = (call: C) => Promise<GuardResult<C['kind']>>;

/** One link, composed at registration: given the rest of the chain, the step that runs this link and then the rest. */
export type Link<C extends GuardCall> = (rest: Step<C>) => Step<C>;

/** `links` around `terminal`, the first outermost; absent links (`undefined`) cost nothing per call. */
export function composeChain<C extends GuardCall>(
  links: ReadonlyArray<Link<C> | undefined>,
  terminal: Step<C>,
): Step<C> {
  return links.reduceRight<Step<C>>((rest, link) => (link === undefined ? rest : link(rest)), terminal);
}

/** What a `guards` list must be, as the errors of the router's option and of an item's field say it. */
export const GUARD_LIST_EXPECTED = 'an array of guard functions (call, next) => result';

/** Whether `value` can be a `guards` option: an array of functions (what each does is up to it). */
export function isGuardList(value: unknown): value is readonly unknown[] {
  return Array.isArray(value) && value.every((guard) => typeof guard === 'function');
}

/**
 * The built-in first link: a caller the item's access rule denies gets exactly the error of an item that does
 * not exist, so it cannot probe for names (undefined when the item has no rule).
 */
export function accessLink<C extends GuardCall>(rule: AccessRule | undefined): Link<C> | undefined {
  if (rule === undefined) return undefined;
  return (rest) =>
    async function accessGuard(call) {
      const seen: GuardCall = call;
      if (!(await mayUse(rule, seen.ctx)))
        throw notFoundError(seen.kind, seen.kind === 'resource' ? seen.uri : seen.name, seen.ctx.era);
      return rest(call);
    };
}

/**
 * Links of user guards: the router's (checked by options.ts), then the item's, checked here. `thrown` turns what a
 * guard throws, other than a {@link JsonRpcError}, into a result (tools); without it the throw goes on to the
 * dispatcher (-32603).
 *
 * @param label - names the item in the error about its guards (`tool 'search'`)
 * @throws {McpConfigError} unless the item's `guards` are absent or an array of functions
 */
export function guardLinks<C extends GuardCall>(
  routerGuards: readonly Guard[],
  itemGuards: ReadonlyArray<GuardOf<C['kind']>> | undefined,
  label: string,
  thrown?: (err: unknown) => GuardResult<C['kind']>,
): Array<Link<C>> {
  if (itemGuards !== undefined && !isGuardList(itemGuards))
    throw new McpConfigError('ERR_MCP_INVALID_DEFINITION', `${label} guards must be ${GUARD_LIST_EXPECTED}`);
  return [...routerGuards, ...(itemGuards ?? [])].map((guard) => guardLink(guard as unknown as UserGuard<C>, thrown));
}

/** A guard as the chain calls it: for calls of type `C`. */
type UserGuard<C extends GuardCall> = (
  call: C,
  next: () => Promise<GuardResult<C['kind']>>,
) => GuardResult<C['kind']> | Promise<GuardResult<C['kind']>>;

function guardLink<C extends GuardCall>(
  guard: UserGuard<C>,
  thrown: ((err: unknown) => GuardResult<C['kind']>) | undefined,
): Link<C> {
  return (rest) =>
    async function userGuard(call) {
      let ran = false;
      const next = (): Promise<GuardResult<C['kind']>> => {
        // Running the item twice would run its side effects (and a payment's settlement) twice.
        if (ran)
          return Promise.reject(
            new Error(`a guard of ${call.kind} '${call.name}' called next() twice; the rest of the chain runs once`),
          );
        ran = true;
        return rest(call);
      };
      try {
        const result: unknown = await guard(call, next);
        // A guard that forgets to return next()'s result is the likely bug: say so, rather than send nothing.
        if (!isObject(result))
          throw new TypeError(
            `a guard of ${call.kind} '${call.name}' returned ${result === null ? 'null' : typeof result}, not a result: return next() or a result of its own`,
          );
        return result as unknown as GuardResult<C['kind']>;
      } catch (err) {
        if (thrown === undefined || err instanceof JsonRpcError) throw err;
        return thrown(err);
      }
    };
}
