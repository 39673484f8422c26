// What a message's SERVER span and duration record carry (mcp.md): its name, attributes and, from the response, its outcome.

import type { Attributes, Span } from '@opentelemetry/api';
import type { JsonRpcResponse } from '../../core/jsonrpc/types';
import type { MessageSetting, ObservedMessage } from '../../core/observe/observed-message';
import { bounded, errorTypeOf, ORIGINAL_OF, targetOf } from '../../core/observe/message-attributes';
import * as semconv from '../../core/observe/semconv';

/** The SERVER span of a message before it starts, and the duration record's attributes. */
export interface ServerSpanPlan {
  /** `mcp.method.name`: the method, or `_OTHER` for one the router does not know. */
  readonly method: string;
  /** The tool or prompt a span may be named after, once registered; never a resource URI. */
  readonly nameable: { readonly key: string; readonly value: string } | undefined;
  /** Whether the span and the histogram name it already. */
  readonly named: boolean;
  /** The duration record's attributes; its owner adds the outcome's. */
  readonly metricAttributes: Attributes;
  /** The span's attributes at its start. */
  readonly attributes: Attributes;
}

/** Node says '2.0' for HTTP/2; the conventions' network.protocol.version says '2' (and '1.1', '1.0' as they are). */
function conventionalHttpVersion(version: string): string {
  return version === '2.0' ? '2' : version === '3.0' ? '3' : version;
}

/** Opt-in attributes as JSON text: a value JSON cannot hold (a cycle, a BigInt) must not fail the call it describes. */
function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? 'undefined';
  } catch {
    return '"[unserialisable]"';
  }
}

/**
 * The name and attributes of a message's SERVER span. Only what the router knows names a series or a span:
 * made-up methods are `_OTHER` (see `knownMethod`), and so are tool and prompt names not registered.
 *
 * @param recordArguments - the `telemetry.recordArguments` option: a tool call's arguments as JSON on its span
 */
export function planServerSpan(
  message: ObservedMessage,
  setting: MessageSetting,
  recordArguments: boolean,
): ServerSpanPlan {
  const known = setting.knownMethod?.(message.method) === true;
  const method = known ? message.method : semconv.OTHER;
  const target = known ? targetOf(message.method, message.params) : undefined;
  const metricAttributes: Attributes = {
    [semconv.ATTR_MCP_METHOD_NAME]: method,
    [semconv.ATTR_MCP_PROTOCOL_VERSION]: setting.protocolVersion,
  };
  // A tool or prompt name is named (span name, histogram) once registered (see `registered`); a resource URI never
  // (mcp.md: span name `{mcp.method.name}` without a low-cardinality target; URIs stay off the histogram).
  const nameable = target !== undefined && target.key !== semconv.ATTR_MCP_RESOURCE_URI ? target : undefined;
  const named = nameable !== undefined && setting.registered?.(message.method, nameable.value) === true;
  const clientAddress = setting.clientAddress();
  if (clientAddress !== undefined) {
    // Streamable HTTP runs over TCP (MCP transports).
    metricAttributes[semconv.ATTR_NETWORK_TRANSPORT] = 'tcp';
    metricAttributes[semconv.ATTR_NETWORK_PROTOCOL_NAME] = 'http';
    if (setting.networkProtocolVersion !== undefined)
      metricAttributes[semconv.ATTR_NETWORK_PROTOCOL_VERSION] = conventionalHttpVersion(setting.networkProtocolVersion);
  }
  const attributes: Attributes = { ...metricAttributes };
  if (!known) attributes[semconv.ATTR_MCP_METHOD_NAME_ORIGINAL] = bounded(message.method);
  if (nameable !== undefined && !named) {
    attributes[nameable.key] = semconv.OTHER;
    attributes[ORIGINAL_OF[nameable.key]!] = bounded(nameable.value);
  } else if (target !== undefined) {
    attributes[target.key] = bounded(target.value);
  }
  if (message.id !== undefined) attributes[semconv.ATTR_JSONRPC_REQUEST_ID] = bounded(String(message.id));
  if (message.method === 'tools/call') {
    attributes[semconv.ATTR_GEN_AI_OPERATION_NAME] = semconv.OPERATION_EXECUTE_TOOL;
    if (recordArguments) attributes[semconv.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = json(message.params?.arguments ?? {});
  }
  if (setting.sessionId !== undefined) attributes[semconv.ATTR_MCP_SESSION_ID] = setting.sessionId;
  if (clientAddress !== undefined) attributes[semconv.ATTR_CLIENT_ADDRESS] = clientAddress;
  return { method, nameable, named, metricAttributes, attributes };
}

/**
 * The span's outcome from the response: error.type and rpc.response.status_code (mcp.md), the opt-in result.
 *
 * @param recordResults - the `telemetry.recordResults` option: a tool call's result as JSON on its span
 * @returns the `error.type` of a failed message, else undefined
 */
export function settleServerSpan(
  span: Span,
  message: ObservedMessage,
  response: JsonRpcResponse | null,
  recordResults: boolean,
): string | undefined {
  // MCP cancellation: a cancelled request gets no response.
  if (response === null) return message.id === undefined ? undefined : semconv.ERROR_TYPE_CANCELLED;
  if ('error' in response) {
    // The span keeps the code as it came (cut short); error.type is bounded like the histogram's attributes.
    span.setAttribute(semconv.ATTR_RPC_RESPONSE_STATUS_CODE, bounded(String(response.error.code)));
    return errorTypeOf(response.error.code);
  }
  if (message.method !== 'tools/call') return undefined;
  if (recordResults) span.setAttribute(semconv.ATTR_GEN_AI_TOOL_CALL_RESULT, json(response.result));
  // mcp.md: a CallToolResult with isError: true is a failed call, error.type "tool_error".
  return (response.result as { isError?: unknown }).isError === true ? semconv.ERROR_TYPE_TOOL_ERROR : undefined;
}
