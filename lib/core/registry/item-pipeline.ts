// One item's call pipeline, composed once at registration: admission (access, the request's checks, the item's checks, the guards' before steps), then run (from the task start on: timeout, handler).

import { McpConfigError } from '../../options/config-error';
import { JsonRpcError } from '../jsonrpc/errors';
import { isObject } from '../jsonrpc/types';
import { mayUse, type AccessRule } from './access';
import {
  GUARD_LIST_EXPECTED,
  isGuardList,
  notFoundError,
  type Guard,
  type GuardCall,
  type GuardOf,
  type GuardResult,
} from './guards';

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

/**
 * What one request brings to an item's pipeline, besides the call: the protocol layer's own admission checks.
 * The item's pipeline is composed at registration; the entry is per call, so nothing is composed on the hot path.
 */
export interface CallEntry {
  /**
   * The request's admission checks the registry cannot know (MCP 2026-07-28 `Mcp-Param-*` headers, task
   * negotiation): run once, right after access (so a denied caller learns nothing from them) and before the item's
   * own checks. Throws to refuse the call.
   */
  readonly admit?: () => void | Promise<void>;
}

/** The parts of an item's pipeline, in the order a call meets them (see {@link Guard} for the whole order). */
export interface PipelineParts<C extends GuardCall> {
  /** Who may use the item; a caller it denies gets the unknown-item error. Undefined: everyone. */
  readonly access: AccessRule | undefined;
  /** The item's admission checks after the request's (arguments, the rate limit): each ends the call or goes on. */
  readonly checks: ReadonlyArray<Link<C> | undefined>;
  /** The router's guards, then the item's: their before steps decide whether the call starts. */
  readonly guards: ReadonlyArray<Link<C>>;
  /** What runs once admitted: the task start (the run entry: `ctx.continueAsTask()`), the timeout. */
  readonly run: ReadonlyArray<Link<C> | undefined>;
  /** The handler (or `read`, `get`, the forwarding), and its value as a result. */
  readonly terminal: Step<C>;
}

/** An item's pipeline: the call and the request's entry in, the item's result out. */
export type Pipeline<C extends GuardCall> = (call: C, entry?: CallEntry) => Promise<GuardResult<C['kind']>>;

/**
 * Composes an item's pipeline once. Access comes first and looks exactly like an unknown item when it denies (so
 * callers cannot probe for names); then the request's checks ({@link CallEntry.admit}), the item's checks, the
 * guards, and what runs once admitted. An item without a rule, checks or guards runs its terminal and no more.
 */
export function composePipeline<C extends GuardCall>(parts: PipelineParts<C>): Pipeline<C> {
  const chain = composeChain<C>([...parts.checks, ...parts.guards, ...parts.run], parts.terminal);
  const rule = parts.access;
  return async function pipeline(call, entry) {
    if (rule !== undefined && !(await mayUse(rule, call.ctx))) {
      const seen: GuardCall = call;
      throw notFoundError(seen.kind, seen.kind === 'resource' ? seen.uri : seen.name, seen.ctx.era);
    }
    if (entry?.admit !== undefined) await entry.admit();
    return chain(call);
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
