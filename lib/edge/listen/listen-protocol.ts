// subscriptions/listen (MCP 2026-07-28), the protocol half: the filter read and bounded, the acknowledgment, the stamping and the graceful completion.

import { failure } from '../../core/jsonrpc/envelope';
import { ErrorCode, JsonRpcError } from '../../core/jsonrpc/errors';
import {
  isObject,
  type JsonRpcFailure,
  type JsonRpcId,
  type JsonRpcNotification,
  type JsonRpcParams,
  type JsonRpcSuccess,
} from '../../core/jsonrpc/types';
import type { OfferedFeatures } from '../../core/registry/registry';
import { MAX_SUBSCRIPTION_URI_LENGTH } from '../../core/protocol/client-data';
import { META_KEYS } from '../../core/protocol/era-2026/request-meta';

/** The method that opens a listen stream (MCP 2026-07-28 basic › patterns › subscriptions). */
export const LISTEN_METHOD = 'subscriptions/listen';

/**
 * A listen stream's filter, as honoured (MCP 2026-07-28 `SubscriptionFilter`): each field opts in to one
 * notification type; an absent field is not subscribed.
 */
export interface ListenFilter {
  readonly toolsListChanged?: true;
  readonly promptsListChanged?: true;
  readonly resourcesListChanged?: true;
  /** The URIs whose `notifications/resources/updated` the stream carries, without duplicates. */
  readonly resourceSubscriptions?: readonly string[];
}

/** The list-changed fields of the filter, each with the notification it lets through and the feature that must be offered. */
const LIST_FIELDS = Object.freeze([
  { field: 'toolsListChanged', method: 'notifications/tools/list_changed', feature: 'tools' },
  { field: 'promptsListChanged', method: 'notifications/prompts/list_changed', feature: 'prompts' },
  { field: 'resourcesListChanged', method: 'notifications/resources/list_changed', feature: 'resources' },
] as const);

const RESOURCE_UPDATED = 'notifications/resources/updated';

function invalidParams(message: string): JsonRpcError {
  return new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: ${message}`);
}

/**
 * Reads the `notifications` filter of a listen request and keeps what the server honours: MCP 2026-07-28 says
 * the acknowledgment carries "the subset the server agreed to honor", and the types it does not support are
 * omitted. A list-changed type is honoured when its feature is offered (as `server/discover` declares it);
 * resource subscriptions when resources are.
 *
 * @param maxUris - most URIs in `resourceSubscriptions` (more → -32602: the stream would hold them all); each is
 *   at most as long as a 2025 `resources/subscribe` URI
 * @throws {JsonRpcError} -32602 for a missing or malformed filter (the schema's `notifications` is required)
 * @example
 * ```ts
 * readListenFilter({ notifications: { toolsListChanged: true, promptsListChanged: true } }, { tools: true, prompts: false, resources: false, completions: false }, 32);
 * // { toolsListChanged: true }
 * ```
 */
export function readListenFilter(params: JsonRpcParams, offered: OfferedFeatures, maxUris: number): ListenFilter {
  const requested = params.notifications;
  if (!isObject(requested))
    throw invalidParams("'notifications' must be an object naming the notifications to receive");
  const honoured: { -readonly [K in keyof ListenFilter]: ListenFilter[K] } = {};
  for (const { field, feature } of LIST_FIELDS) {
    const value = requested[field];
    if (value !== undefined && typeof value !== 'boolean')
      throw invalidParams(`'notifications.${field}' must be a boolean`);
    if (value === true && offered[feature]) honoured[field] = true;
  }
  const uris = requested.resourceSubscriptions;
  if (uris !== undefined) {
    if (
      !Array.isArray(uris) ||
      !uris.every((uri) => typeof uri === 'string' && uri !== '' && uri.length <= MAX_SUBSCRIPTION_URI_LENGTH)
    ) {
      throw invalidParams(
        `'notifications.resourceSubscriptions' must be an array of resource URIs (non-empty strings of at most ${MAX_SUBSCRIPTION_URI_LENGTH} characters)`,
      );
    }
    if (uris.length > maxUris)
      throw invalidParams(
        `'notifications.resourceSubscriptions' names ${uris.length} URIs; at most ${maxUris} are allowed`,
      );
    if (offered.resources && uris.length > 0)
      honoured.resourceSubscriptions = Object.freeze([...new Set(uris as string[])]);
  }
  return Object.freeze(honoured);
}

/** The `_meta` every message of a listen stream carries: the listen request's id (MCP 2026-07-28: the subscription id). */
function subscriptionMeta(id: JsonRpcId): Record<string, unknown> {
  return { [META_KEYS.subscriptionId]: id };
}

/**
 * The first message of a listen stream (MUST): `notifications/subscriptions/acknowledged` with the honoured
 * filter, stamped with the subscription id.
 */
export function listenAcknowledgment(id: JsonRpcId, filter: ListenFilter): JsonRpcNotification {
  return {
    jsonrpc: '2.0',
    method: 'notifications/subscriptions/acknowledged',
    params: { _meta: subscriptionMeta(id), notifications: { ...filter } },
  };
}

/**
 * Decides what a listen stream does with a server notification. One the filter did not request is `undefined`
 * (MCP 2026-07-28: the server MUST NOT send types the client has not requested); so is every method that is not a
 * list change or a resource update, which keeps progress and log messages off listen streams by construction.
 * One it requested comes back as a copy stamped with the subscription id.
 *
 * @param uris - the filter's `resourceSubscriptions` as a set (made once per stream)
 */
export function forListenStream(
  id: JsonRpcId,
  filter: ListenFilter,
  uris: ReadonlySet<string>,
  notification: JsonRpcNotification,
): JsonRpcNotification | undefined {
  const { method, params } = notification;
  if (method === RESOURCE_UPDATED) {
    if (typeof params?.uri !== 'string' || !uris.has(params.uri)) return undefined;
  } else if (!LIST_FIELDS.some((entry) => entry.method === method && filter[entry.field] === true)) {
    return undefined;
  }
  return { jsonrpc: '2.0', method, params: { ...params, _meta: subscriptionMeta(id) } };
}

/**
 * The response that ends a listen stream gracefully (MCP 2026-07-28 subscriptions › Graceful Closure, SHOULD):
 * a complete result carrying nothing but the subscription id, so the client knows it may reopen rather than
 * treat the end as a drop.
 */
export function listenCompletion(id: JsonRpcId): JsonRpcSuccess {
  return { jsonrpc: '2.0', id, result: { resultType: 'complete', _meta: subscriptionMeta(id) } };
}

/** A listen request refused before its stream opened: the error with the request's id (a 2026 error never says `id: null` for a request that had one). */
export function listenRefusal(id: JsonRpcId, code: number, message: string): JsonRpcFailure {
  return failure(id, new JsonRpcError(code, message));
}
