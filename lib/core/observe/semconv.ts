// The OpenTelemetry names this router emits, pinned in one place: the semantic conventions for MCP (status Development).

// Followed: OpenTelemetry semantic conventions v1.39.0, docs/gen-ai/mcp.md (since moved to
// open-telemetry/semantic-conventions-genai, same file and names). The conventions are in Development, so a rename
// upstream is one edit here; nothing else in lib/ spells an attribute or metric name.

/** `mcp.method.name` (required): the JSON-RPC method, e.g. `tools/call`. */
export const ATTR_MCP_METHOD_NAME = 'mcp.method.name';
/** `jsonrpc.request.id` (conditionally required: when the message is a request). */
export const ATTR_JSONRPC_REQUEST_ID = 'jsonrpc.request.id';
/** `gen_ai.tool.name` (conditionally required: tools/call). */
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
/** `gen_ai.prompt.name` (conditionally required: prompts/get). */
export const ATTR_GEN_AI_PROMPT_NAME = 'gen_ai.prompt.name';
/** `mcp.resource.uri` (conditionally required: resources/read, subscribe, unsubscribe). */
export const ATTR_MCP_RESOURCE_URI = 'mcp.resource.uri';
/** `gen_ai.operation.name` (recommended): `execute_tool` on tools/call. */
export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
/** The `gen_ai.operation.name` of a tool call. */
export const OPERATION_EXECUTE_TOOL = 'execute_tool';
/** `mcp.protocol.version` (recommended): the revision in force. */
export const ATTR_MCP_PROTOCOL_VERSION = 'mcp.protocol.version';
/** `mcp.session.id` (recommended): the 2025 `Mcp-Session-Id`. */
export const ATTR_MCP_SESSION_ID = 'mcp.session.id';
/** `error.type` (conditionally required: when the operation failed): the JSON-RPC code as a string, or `tool_error`. */
export const ATTR_ERROR_TYPE = 'error.type';
/** The `error.type` of a tools/call whose result has `isError: true` (mcp.md: "tool_error"). */
export const ERROR_TYPE_TOOL_ERROR = 'tool_error';
/** The `error.type` of a request the client cancelled (no response is sent): this router's value, not the conventions'. */
export const ERROR_TYPE_CANCELLED = 'cancelled';
/** `rpc.response.status_code` (conditionally required: when the response is a JSON-RPC error): its code, as a string. */
export const ATTR_RPC_RESPONSE_STATUS_CODE = 'rpc.response.status_code';
/** `network.transport` (recommended): `tcp` for Streamable HTTP. */
export const ATTR_NETWORK_TRANSPORT = 'network.transport';
/** `network.protocol.name` (recommended): `http` for Streamable HTTP. */
export const ATTR_NETWORK_PROTOCOL_NAME = 'network.protocol.name';
/** `network.protocol.version` (recommended): the HTTP version, `1.1` or `2.0`. */
export const ATTR_NETWORK_PROTOCOL_VERSION = 'network.protocol.version';
/** `client.address` (recommended): the HTTP client's address. */
export const ATTR_CLIENT_ADDRESS = 'client.address';
/** `gen_ai.tool.call.arguments` (opt-in): a tool call's arguments, as JSON. */
export const ATTR_GEN_AI_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments';
/** `gen_ai.tool.call.result` (opt-in): a tool call's result, as JSON. */
export const ATTR_GEN_AI_TOOL_CALL_RESULT = 'gen_ai.tool.call.result';

/**
 * The value of an attribute that would otherwise carry what a client or an upstream chose (a method, tool or prompt the
 * router does not know, an error code outside JSON-RPC's): OpenTelemetry's convention for values outside a known set
 * (e.g. `http.request.method`), so series and span names never grow with what peers send.
 */
export const OTHER = '_OTHER';
/** The method a client sent, on the span only, when `mcp.method.name` is `_OTHER`: this package's attribute. */
export const ATTR_MCP_METHOD_NAME_ORIGINAL = 'express_mcp_router.mcp.method.name_original';
/** The tool name a client sent, on the span only, when `gen_ai.tool.name` is `_OTHER` (no such tool): this package's attribute. */
export const ATTR_GEN_AI_TOOL_NAME_ORIGINAL = 'express_mcp_router.gen_ai.tool.name_original';
/** The prompt name a client sent, on the span only, when `gen_ai.prompt.name` is `_OTHER` (no such prompt): this package's attribute. */
export const ATTR_GEN_AI_PROMPT_NAME_ORIGINAL = 'express_mcp_router.gen_ai.prompt.name_original';
/** The longest peer-chosen text put on a span (a raw method or name, a resource URI, a request id, an error message). */
export const MAX_RAW_VALUE_LENGTH = 1024;

/** Histogram `mcp.server.operation.duration`, in seconds: one record per request served. */
export const METRIC_SERVER_OPERATION_DURATION = 'mcp.server.operation.duration';
/** Histogram `mcp.server.session.duration`, in seconds: one record per 2025 session ended. */
export const METRIC_SERVER_SESSION_DURATION = 'mcp.server.session.duration';
/** The bucket boundaries the conventions advise for both histograms (seconds). */
export const DURATION_BUCKETS_S: readonly number[] = Object.freeze([
  0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
]);

/** SEP-414: the `params._meta` keys that carry W3C trace context and baggage. */
export const META_TRACE_KEYS: readonly string[] = Object.freeze(['traceparent', 'tracestate', 'baggage']);

/** `server.address` (recommended on CLIENT spans): the host called (an upstream, a facilitator). */
export const ATTR_SERVER_ADDRESS = 'server.address';
/** `server.port` (recommended on CLIENT spans): the port called. */
export const ATTR_SERVER_PORT = 'server.port';
/** The gateway's name of an upstream (`mcp.upstream({ name })`): this package's attribute, not the conventions'. */
export const ATTR_UPSTREAM_NAME = 'express_mcp_router.upstream.name';

// A bridged route's span follows the HTTP semantic conventions (stable): name `{http.request.method} {http.route}`.
/** `http.request.method` of a bridged route's span. */
export const ATTR_HTTP_REQUEST_METHOD = 'http.request.method';
/** `http.route`: the route's path template (`/users/:id`). */
export const ATTR_HTTP_ROUTE = 'http.route';
/** `http.response.status_code` of a bridged route's response. */
export const ATTR_HTTP_RESPONSE_STATUS_CODE = 'http.response.status_code';
