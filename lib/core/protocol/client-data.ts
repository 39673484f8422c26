// What a session keeps of its client: capabilities and clientInfo from initialize, bounded and validated before they are kept.

import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import { isObject } from '../jsonrpc/types';

/**
 * Longest JSON text (in characters) of the client capabilities a session keeps. The largest real declaration
 * (sampling with tools and context, elicitation in both modes, roots, tasks) is under 300; a session keeps
 * them for its whole life.
 */
export const MAX_CLIENT_CAPABILITIES_LENGTH = 2_048;
/** Longest string kept of `clientInfo` (name, version, title, description, websiteUrl). */
export const MAX_CLIENT_INFO_FIELD_LENGTH = 512;
/** Longest URI a session may subscribe to (`resources/subscribe`). */
export const MAX_SUBSCRIPTION_URI_LENGTH = 1_024;

/**
 * The client capabilities MCP defines (2025-11-25 `ClientCapabilities`, plus `extensions` of 2026-07-28).
 * Others are dropped: nothing reads them, and a session would keep them for its whole life.
 */
const CLIENT_CAPABILITIES = ['experimental', 'roots', 'sampling', 'elicitation', 'tasks', 'extensions'] as const;
/** The `Implementation` fields of `clientInfo` that are strings; icons and unknown fields are dropped. */
const CLIENT_INFO_FIELDS = ['name', 'version', 'title', 'description', 'websiteUrl'] as const;

function invalidParams(message: string): JsonRpcError {
  return new JsonRpcError(ErrorCode.InvalidParams, `Invalid params: ${message}`);
}

/**
 * The capabilities a session keeps: the known ones that are objects, at most
 * {@link MAX_CLIENT_CAPABILITIES_LENGTH} characters as JSON. What a client sends must not decide what the server holds.
 *
 * @throws {JsonRpcError} -32602 when the known capabilities are larger than the limit
 */
export function boundedCapabilities(sent: unknown): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  if (!isObject(sent)) return kept;
  let any = false;
  for (const name of CLIENT_CAPABILITIES) {
    const value = Object.hasOwn(sent, name) ? sent[name] : undefined;
    if (isObject(value)) {
      kept[name] = value;
      any = true;
    }
  }
  // `{}` is 2 characters: a client that declares nothing (a 2026 request's `_meta` on every call) costs no JSON text.
  if (!any) return kept;
  const length = JSON.stringify(kept).length;
  if (length > MAX_CLIENT_CAPABILITIES_LENGTH) {
    throw invalidParams(
      `the client capabilities are ${length} characters long as JSON; at most ${MAX_CLIENT_CAPABILITIES_LENGTH} are accepted`,
    );
  }
  return kept;
}

/**
 * The `clientInfo` a session keeps: its string fields, each at most {@link MAX_CLIENT_INFO_FIELD_LENGTH}
 * characters; undefined when the client sent none.
 *
 * @throws {JsonRpcError} -32602 for a longer field
 */
export function boundedClientInfo(sent: unknown): Record<string, string> | undefined {
  if (!isObject(sent)) return undefined;
  const kept: Record<string, string> = {};
  for (const field of CLIENT_INFO_FIELDS) {
    const value = Object.hasOwn(sent, field) ? sent[field] : undefined;
    if (typeof value !== 'string') continue;
    if (value.length > MAX_CLIENT_INFO_FIELD_LENGTH) {
      throw invalidParams(
        `clientInfo.${field} is ${value.length} characters long; at most ${MAX_CLIENT_INFO_FIELD_LENGTH} are accepted`,
      );
    }
    kept[field] = value;
  }
  return kept;
}

/**
 * The subscriptions after subscribing to `uri`: the same array when it is there already.
 *
 * @param max - most subscriptions one session may hold (`sessions.maxSubscriptions`)
 * @throws {JsonRpcError} -32602 for a URI longer than {@link MAX_SUBSCRIPTION_URI_LENGTH}, or one subscription too many
 */
export function withSubscription(subscriptions: readonly string[], uri: string, max: number): readonly string[] {
  if (uri.length > MAX_SUBSCRIPTION_URI_LENGTH) {
    throw invalidParams(
      `the uri is ${uri.length} characters long; at most ${MAX_SUBSCRIPTION_URI_LENGTH} can be subscribed to`,
    );
  }
  if (subscriptions.includes(uri)) return subscriptions;
  if (subscriptions.length >= max) {
    throw invalidParams(
      `this session already holds ${subscriptions.length} subscriptions, the most allowed (sessions.maxSubscriptions); unsubscribe from one first`,
    );
  }
  return [...subscriptions, uri];
}
