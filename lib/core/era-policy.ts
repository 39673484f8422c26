// The era policy: per protocol era, as data, what differs between eras (methods, result fields, error codes and statuses, headers, tasks); nothing else compares era literals.

import { ErrorCode, JsonRpcError } from './jsonrpc/errors';
import { VERSIONS_BY_ERA, type Era } from './versions';

/** How MCP tasks work in an era (MCP 2025-11-25 tasks; MCP 2026-07-28 moved them to an extension, SEP-2663). */
export interface TaskPolicy {
  /**
   * True when a request asks for tasks by declaring the tasks extension in its `_meta` capabilities, and tasks/*
   * need it (-32021 without, SEP-2663); false when a `tools/call` asks with a `task` param (MCP 2025-11-25).
   */
  readonly viaExtension: boolean;
  /** The Task object's names of its time to live and poll interval (2025-11-25: `ttl`; SEP-2663: `ttlMs`). */
  readonly ttlField: 'ttl' | 'ttlMs';
  readonly pollIntervalField: 'pollInterval' | 'pollIntervalMs';
  /** `tasks/get` answers the detailed task, its input requests and result inline (SEP-2663); else the Task object. */
  readonly detailedGet: boolean;
  /** `tasks/cancel` answers an empty acknowledgement, also for a finished task (SEP-2663); else the cancelled task. */
  readonly emptyCancelAck: boolean;
  /**
   * A task's handler may ask the client (SEP-2663 Task Update Requests: the ask becomes an input request answered by
   * `tasks/update`); in 2025 the request stream that could carry it has ended.
   */
  readonly asksClient: boolean;
}

/** What one era decides. Adding an era is adding one {@link ERA_POLICIES} entry. */
export interface EraPolicy {
  /**
   * Where the client state comes from: `'session'` (MCP 2025: `initialize` negotiates it, the session keeps it; the
   * `Mcp-Session-Id` header names it) or `'request'` (MCP 2026-07-28: each request's `_meta` carries it; stateless).
   */
  readonly clientState: 'session' | 'request';
  /**
   * MCP 2026-07-28 (SEP-2243): the request mirrors its body in headers (`MCP-Protocol-Version`, `Mcp-Method`,
   * `Mcp-Name`, `Mcp-Param-*`), checked against it (-32020 on a mismatch). False: only `MCP-Protocol-Version`.
   */
  readonly mirrorHeaders: boolean;
  /**
   * Results carry `resultType`, serverInfo in `_meta` and, on cacheable ones, `ttlMs` and `cacheScope` (MCP 2026-07-28
   * SEP-2322, basic › `_meta`, caching); a resource's own cache hint rides on its `resources/read` result.
   */
  readonly resultEnvelope: boolean;
  /** A call may end with `input_required` and be retried with answers and `requestState` (MCP 2026-07-28 MRTR). */
  readonly inputRequiredRounds: boolean;
  /** Clients listen for server events on `subscriptions/listen` streams (MCP 2026-07-28), not on a session's GET stream. */
  readonly listenStreams: boolean;
  /** The code of a resource that does not exist: -32002 (MCP resources › Error Handling); -32602 (SEP-2164). */
  readonly resourceNotFoundCode: number;
  /**
   * The HTTP status of a served request's JSON-RPC error, by code; any other goes in-band on 200. MCP 2026-07-28
   * transports: -32601 is 404 and the 2026 request errors (-32020…-32022) are 400.
   */
  readonly errorStatus: Readonly<Record<number, number>>;
  /** `ctx.log` sends only when the request set a level (MCP 2026-07-28 M4: `io.modelcontextprotocol/logLevel`). */
  readonly logsOnlyWhenAsked: boolean;
  /**
   * Asking the client for a capability it did not declare is a protocol error (MCP 2026-07-28 M3: -32021 with
   * `data.requiredCapabilities`, HTTP 400); else a plain Error the tool ends with as `isError`.
   */
  readonly undeclaredAskIsProtocolError: boolean;
  readonly tasks: TaskPolicy;
}

/** The policy of each era, frozen. */
export const ERA_POLICIES: Readonly<Record<Era, EraPolicy>> = Object.freeze({
  '2025': Object.freeze({
    clientState: 'session',
    mirrorHeaders: false,
    resultEnvelope: false,
    inputRequiredRounds: false,
    listenStreams: false,
    resourceNotFoundCode: ErrorCode.ResourceNotFound,
    errorStatus: Object.freeze({}),
    logsOnlyWhenAsked: false,
    undeclaredAskIsProtocolError: false,
    tasks: Object.freeze({
      viaExtension: false,
      ttlField: 'ttl',
      pollIntervalField: 'pollInterval',
      detailedGet: false,
      emptyCancelAck: false,
      asksClient: false,
    }),
  }),
  '2026': Object.freeze({
    clientState: 'request',
    mirrorHeaders: true,
    resultEnvelope: true,
    inputRequiredRounds: true,
    listenStreams: true,
    resourceNotFoundCode: ErrorCode.InvalidParams,
    errorStatus: Object.freeze({
      [ErrorCode.MethodNotFound]: 404,
      [ErrorCode.HeaderMismatch]: 400,
      [ErrorCode.MissingRequiredClientCapability]: 400,
      [ErrorCode.UnsupportedProtocolVersion]: 400,
    }),
    logsOnlyWhenAsked: true,
    undeclaredAskIsProtocolError: true,
    tasks: Object.freeze({
      viaExtension: true,
      ttlField: 'ttlMs',
      pollIntervalField: 'pollIntervalMs',
      detailedGet: true,
      emptyCancelAck: true,
      asksClient: true,
    }),
  }),
} satisfies Record<Era, EraPolicy>);

/** The policy of `era`. */
export function eraPolicy(era: Era): EraPolicy {
  return ERA_POLICIES[era];
}

/** Every era, oldest first. */
export const ALL_ERAS: readonly Era[] = Object.freeze(Object.keys(VERSIONS_BY_ERA) as Era[]);

/** The eras whose client state `initialize` negotiates and a session keeps: those that serve the 2025 lifecycle. */
export const SESSION_ERAS: readonly Era[] = Object.freeze(ALL_ERAS.filter((era) => stateful(era)));

/** The stateless eras: the client state comes with each request (MCP 2026-07-28). */
export const STATELESS_ERAS: readonly Era[] = Object.freeze(ALL_ERAS.filter((era) => !stateful(era)));

/** The era of `initialize` and sessions: what a message without a 2026 claim in its `_meta` belongs to. */
export const SESSION_ERA: Era = SESSION_ERAS[0] as Era;

/** True when the era keeps its client state in a session (MCP 2025), false when each request carries it. */
export function stateful(era: Era): boolean {
  return ERA_POLICIES[era].clientState === 'session';
}

/** Whether any of `eras` keeps sessions (then the router has a session layer, GET streams and DELETE). */
export function servesSessions(eras: readonly Era[]): boolean {
  return eras.some(stateful);
}

/** Whether any of `eras` is stateless (then requests may claim it in their `_meta`). */
export function servesStateless(eras: readonly Era[]): boolean {
  return eras.some((era) => !stateful(era));
}

/**
 * A handler's or guard's JSON-RPC error as a request of `era` gets it. MCP 2026-07-28 (SEP-2164): a resource that does
 * not exist is -32602 with `data.uri`, and -32002 is never sent; a handler written for 2025 that throws -32002 (as
 * README's path check does) is answered in the era's form with the same message and data.
 */
export function eraError(era: Era, error: JsonRpcError): JsonRpcError {
  const code = ERA_POLICIES[era].resourceNotFoundCode;
  return error.code === ErrorCode.ResourceNotFound && code !== error.code
    ? new JsonRpcError(code, error.message, error.data)
    : error;
}

/** The HTTP status of a served request's JSON-RPC error code in `era` (200 when the error goes in-band). */
export function errorStatus(era: Era, code: number): number {
  return ERA_POLICIES[era].errorStatus[code] ?? 200;
}
