// Which values of an MCP message reach spans and metrics: its conventions' target, `_OTHER` for what peers chose, and bounded peer text.

import * as semconv from './semconv';

/** The attribute holding what a client sent when the conventions' attribute is `_OTHER`. */
export const ORIGINAL_OF: Readonly<Record<string, string>> = {
  [semconv.ATTR_GEN_AI_TOOL_NAME]: semconv.ATTR_GEN_AI_TOOL_NAME_ORIGINAL,
  [semconv.ATTR_GEN_AI_PROMPT_NAME]: semconv.ATTR_GEN_AI_PROMPT_NAME_ORIGINAL,
};

/** Text a peer chose, as a span may carry it: at most {@link semconv.MAX_RAW_VALUE_LENGTH} characters. */
export function bounded(value: string): string {
  return value.length <= semconv.MAX_RAW_VALUE_LENGTH ? value : `${value.slice(0, semconv.MAX_RAW_VALUE_LENGTH)}…`;
}

/**
 * `error.type` (and the histogram's `rpc.response.status_code`) of a JSON-RPC error code: mcp.md says the code as a
 * string. Codes in JSON-RPC's reserved range (-32768 to -32000, where MCP's own are) are kept; any other is an
 * application's or an upstream's choice (a gateway passes upstream errors on as they came) and is `_OTHER`.
 */
export function errorTypeOf(code: unknown): string {
  return typeof code === 'number' && Number.isInteger(code) && code >= -32768 && code <= -32000
    ? String(code)
    : semconv.OTHER;
}

/** The conventions' target of a method: a tool or prompt name, or a resource URI. */
export function targetOf(
  method: string,
  params: Readonly<Record<string, unknown>> | undefined,
): { readonly key: string; readonly value: string } | undefined {
  if (method === 'tools/call' && typeof params?.name === 'string')
    return { key: semconv.ATTR_GEN_AI_TOOL_NAME, value: params.name };
  if (method === 'prompts/get' && typeof params?.name === 'string')
    return { key: semconv.ATTR_GEN_AI_PROMPT_NAME, value: params.name };
  if (method.startsWith('resources/') && typeof params?.uri === 'string')
    return { key: semconv.ATTR_MCP_RESOURCE_URI, value: params.uri };
  return undefined;
}

/**
 * The conventions' span name (`{mcp.method.name} {target}`) and target attributes of a message this server sends
 * (a CLIENT span: an upstream call of the gateway, for one of the items it mounted). mcp.md: a resource URI is not a
 * low-cardinality target, so `resources/read` is named by its method alone, its URI an attribute.
 */
export function describeMessage(
  method: string,
  params: Readonly<Record<string, unknown>> | undefined,
): { readonly name: string; readonly attributes: Record<string, string> } {
  const target = targetOf(method, params);
  const attributes: Record<string, string> = { [semconv.ATTR_MCP_METHOD_NAME]: method };
  if (target !== undefined) attributes[target.key] = bounded(target.value);
  if (method === 'tools/call') attributes[semconv.ATTR_GEN_AI_OPERATION_NAME] = semconv.OPERATION_EXECUTE_TOOL;
  return {
    name: target === undefined || target.key === semconv.ATTR_MCP_RESOURCE_URI ? method : `${method} ${target.value}`,
    attributes,
  };
}
