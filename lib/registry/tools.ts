// Tools: the definition users register, its compiled form, and callTool (validate → handler → result).

import { isPositiveInteger, McpConfigError } from '../errors';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import { isObject } from '../jsonrpc/types';
import type { CompiledSchema, SchemaValidator } from '../schema/validator';
import { isAtLeast } from '../versions';
import { isContentBlock, textContent, type ContentBlock } from './content';
import { accessRuleOf, type AccessRule } from './access';
import { createCallLimiter, type CallLimiter, type CallLimitOptions } from './call-limit';
import type { RequestContext } from './request-context';
import { checkDefinitionObject, checkHandler, copyDefined, type Icon } from './definition';

/** A JSON Schema object (2020-12 unless `$schema` says otherwise). */
export type JsonSchema = Record<string, unknown>;

/** Hints about a tool's behaviour (MCP 2025-03-26 and later); clients must not trust them for security. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** The result of `tools/call`. */
export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** A tool as registered with `mcp.tool()`. */
export interface ToolDefinition<Args = Record<string, unknown>> extends AccessRule {
  /** 1–128 characters of `A-Z a-z 0-9 _ . -`, unique in the router (MCP 2025-11-25 tool names). */
  name: string;
  /** A human-readable name for UIs. */
  title?: string;
  /** What the tool does, for the model: required, since a model cannot use a tool it cannot read about. */
  description: string;
  /** JSON Schema of the arguments (`type: 'object'`). Defaults to `{ type: 'object', additionalProperties: false }`. */
  inputSchema?: JsonSchema;
  /** JSON Schema of `structuredContent`; when given, every successful result is checked against it. */
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
  /** Longest a call may run: then its signal aborts and the caller gets an `isError` result. Defaults to no limit. */
  timeoutMs?: number;
  /** At most `limit` calls per `windowMs` per caller (principal, else session); more get an `isError` result. Defaults to none. */
  rateLimit?: CallLimitOptions;
  /**
   * Runs the tool. Return a string (→ text), a plain object (→ `structuredContent` plus its JSON as text),
   * a content block, or a whole {@link CallToolResult}. A throw becomes an `isError` result with the message.
   */
  handler(args: Args, ctx: RequestContext): unknown;
}

/** The `tools/list` entry of a tool, exactly as sent (before per-version shaping). */
export type ToolDescriptor = Readonly<Record<string, unknown>> & { readonly name: string };

/** A tool, validated and compiled. */
export interface RegisteredTool {
  readonly name: string;
  readonly descriptor: ToolDescriptor;
  readonly validateInput: CompiledSchema;
  readonly validateOutput: CompiledSchema | undefined;
  /** True when the declared outputSchema is not an object schema: every result value is sent as `{ result: value }`. */
  readonly wrapsResult: boolean;
  readonly handler: (args: Record<string, unknown>, ctx: RequestContext) => unknown;
  /** Who may list and call it; undefined for everyone. */
  readonly access: AccessRule | undefined;
  readonly timeoutMs: number | undefined;
  readonly limiter: CallLimiter | undefined;
}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const NO_ARGUMENTS_SCHEMA: JsonSchema = { type: 'object', additionalProperties: false };

/**
 * Checks and compiles a tool definition; the schemas are copied, so later changes to the caller's objects
 * change neither validation nor `tools/list`.
 *
 * @throws {McpConfigError} for a bad name, a missing description or handler, or a schema that is not an object schema
 */
export function defineTool(definition: ToolDefinition<never>, validator: SchemaValidator): RegisteredTool {
  checkDefinitionObject(definition, 'tool');
  const { name, description } = definition;
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
    throw new McpConfigError('ERR_MCP_INVALID_NAME', `tool name ${JSON.stringify(name)} is invalid: use 1–128 characters of A-Z a-z 0-9 _ . -`);
  }
  if (typeof description !== 'string' || description.trim() === '') {
    throw new McpConfigError('ERR_MCP_INVALID_DEFINITION', `tool '${name}' needs a description: models pick tools by reading it`);
  }
  checkHandler(definition.handler, `tool '${name}'`, 'handler');
  const { timeoutMs } = definition;
  if (timeoutMs !== undefined && !isPositiveInteger(timeoutMs)) {
    throw new McpConfigError('ERR_MCP_INVALID_DEFINITION', `tool '${name}' timeoutMs must be a positive number of milliseconds`);
  }
  const inputSchema = objectSchema(definition.inputSchema ?? NO_ARGUMENTS_SCHEMA, `tool '${name}' inputSchema`);
  const declared = definition.outputSchema;
  // wrapsOutput has checked the schema: an object schema as declared, any other sent as { result: schema }.
  const wrapsResult = declared !== undefined && wrapsOutput(declared, `tool '${name}' outputSchema`);
  const outputSchema = declared === undefined ? undefined : wrapsResult ? wrappedSchema(declared) : declared;
  const descriptor = copyDefined({
    name,
    title: definition.title,
    description,
    inputSchema,
    outputSchema,
    annotations: definition.annotations,
    icons: definition.icons,
    _meta: definition._meta,
  }) as ToolDescriptor;
  return Object.freeze({
    name,
    descriptor,
    // The descriptor's copies are compiled, so what is validated is exactly what tools/list shows.
    validateInput: validator.compile(descriptor.inputSchema as JsonSchema, `tool '${name}' inputSchema`),
    validateOutput: outputSchema && validator.compile(descriptor.outputSchema as JsonSchema, `tool '${name}' outputSchema`),
    wrapsResult,
    handler: definition.handler.bind(definition) as RegisteredTool['handler'],
    access: accessRuleOf(definition, `tool '${name}'`),
    timeoutMs,
    limiter: definition.rateLimit === undefined ? undefined : createCallLimiter(definition.rateLimit, `tool '${name}'`),
  });
}

/**
 * True when an output schema describes something other than an object (`{ type: 'array' }`, `{ type: 'string' }`,
 * `{ enum: [...] }`): MCP wants `structuredContent` to be an object, so such results travel as `{ result: value }`
 * under `{ type: 'object', properties: { result: schema }, required: ['result'] }`, as the Python SDKs do.
 *
 * @throws {McpConfigError} for a schema that is not an object, or that lists object keywords without `type: 'object'`
 */
export function wrapsOutput(schema: unknown, label: string): boolean {
  if (!isObject(schema)) throw new McpConfigError('ERR_MCP_INVALID_SCHEMA', `${label} must be a JSON Schema object`);
  if (schema.type === 'object') return false;
  if (schema.type === undefined && ('properties' in schema || 'required' in schema || 'additionalProperties' in schema)) {
    throw new McpConfigError('ERR_MCP_INVALID_SCHEMA', `${label} lists object keywords without type: 'object'; add it (any other schema is sent as { result: <value> })`);
  }
  return true;
}

/** The object schema a non-object output schema is sent as (see {@link wrapsOutput}). */
function wrappedSchema(schema: JsonSchema): JsonSchema {
  return { type: 'object', properties: { result: schema }, required: ['result'] };
}

function objectSchema(schema: unknown, label: string): JsonSchema {
  // MCP: inputSchema and outputSchema are JSON Schema objects whose root type is "object".
  if (!isObject(schema) || schema.type !== 'object') {
    throw new McpConfigError('ERR_MCP_INVALID_SCHEMA', `${label} must be a JSON Schema object with type: 'object'`);
  }
  return schema;
}

/**
 * Calls a tool: arguments that fail the schema and handlers that throw become `isError` results
 * (MCP 2025-11-25 tools › Error Handling); before 2025-11-25 invalid arguments are a -32602 error.
 */
export async function callTool(tool: RegisteredTool, args: Record<string, unknown>, ctx: RequestContext): Promise<CallToolResult> {
  const input = tool.validateInput(args);
  if (!input.ok) {
    const message = `Invalid arguments for tool '${tool.name}': ${input.message}`;
    if (!isAtLeast(ctx.protocolVersion, '2025-11-25')) throw new JsonRpcError(ErrorCode.InvalidParams, message);
    return errorResult(message);
  }
  const retryAfter = tool.limiter?.take(ctx);
  if (retryAfter !== undefined) return errorResult(`Tool '${tool.name}' is over its rate limit; try again in ${retryAfter} s`);
  let value: unknown;
  try {
    value = tool.timeoutMs === undefined ? await tool.handler(args, ctx) : await withTimeout(tool, args, ctx, tool.timeoutMs);
  } catch (err) {
    if (err instanceof JsonRpcError) throw err; // a deliberate protocol error from the handler
    return errorResult(err instanceof Error ? err.message : String(err));
  }
  const result = toCallToolResult(value, tool.wrapsResult);
  if (tool.validateOutput && !result.isError) {
    // MCP 2025-06-18 tools › Output Schema: structured results MUST conform to the declared schema.
    const output = result.structuredContent === undefined ? { ok: false as const, message: 'no structured result' } : tool.validateOutput(result.structuredContent);
    if (!output.ok) return errorResult(`Tool '${tool.name}' returned output that does not match its outputSchema: ${output.message}`);
  }
  return result;
}

/**
 * Runs the handler with its own signal, aborted after `timeoutMs` (or with the request's); a timeout rejects
 * with a message for the model, and the handler is told to stop through its signal.
 */
async function withTimeout(tool: RegisteredTool, args: Record<string, unknown>, ctx: RequestContext, timeoutMs: number): Promise<unknown> {
  const controller = new AbortController();
  const forward = (): void => controller.abort(ctx.signal.reason);
  ctx.signal.addEventListener('abort', forward, { once: true });
  // The handler sees the same context, but with the signal that the timeout aborts.
  const timed = Object.create(ctx, { signal: { value: controller.signal } }) as RequestContext;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const error = new Error(`Tool '${tool.name}' timed out after ${timeoutMs} ms`);
      // Settle first: a handler that answers its abort at once must not win the race.
      reject(error);
      controller.abort(error);
    }, timeoutMs);
  });
  try {
    return await Promise.race([Promise.resolve(tool.handler(args, timed)), expired]);
  } finally {
    clearTimeout(timer);
    ctx.signal.removeEventListener('abort', forward);
  }
}

/** A result that tells the model the call failed, and why. */
export function errorResult(message: string): CallToolResult {
  return { content: [textContent(message)], isError: true };
}

/**
 * What a handler returned → a {@link CallToolResult}. MCP wants `structuredContent` to be an object: a plain
 * object is sent as it is, an array, finite number, boolean or null as `{ result: value }`, each with its JSON as
 * text. A string is text only, unless `wrap` (a non-object outputSchema) asks for `{ result: value }` for all.
 *
 * @param value - what the handler returned
 * @param wrap - true when the tool's outputSchema is not an object schema ({@link wrapsOutput})
 */
export function toCallToolResult(value: unknown, wrap = false): CallToolResult {
  if (value === undefined) return { content: [] };
  if (typeof value === 'string') return wrap ? { content: [textContent(value)], structuredContent: { result: value } } : { content: [textContent(value)] };
  if (isContentBlock(value)) return { content: [value] };
  if (isObject(value) && Array.isArray(value.content) && value.content.every(isContentBlock)) return value as unknown as CallToolResult;
  return isJsonValue(value) ? jsonResult(value, wrap) : { content: [textContent(String(value))] };
}

/**
 * A JSON value as a result: its JSON as text, and as `structuredContent` itself when it is a plain object (and
 * `wrap` is off), else as `{ result: value }` (MCP: structuredContent is an object).
 *
 * @example
 * ```ts
 * jsonResult([1, 2], false); // { content: [{ type: 'text', text: '[1,2]' }], structuredContent: { result: [1, 2] } }
 * ```
 */
export function jsonResult(value: unknown, wrap: boolean): CallToolResult {
  const content = [textContent(JSON.stringify(value))];
  return isObject(value) && !wrap ? { content, structuredContent: value } : { content, structuredContent: { result: value } };
}

/** A value JSON carries as itself: objects, arrays, finite numbers, booleans and null (not NaN, bigint, functions). */
function isJsonValue(value: unknown): boolean {
  return value === null || typeof value === 'boolean' || typeof value === 'object' || (typeof value === 'number' && Number.isFinite(value));
}
