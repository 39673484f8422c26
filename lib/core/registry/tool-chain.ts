// A tool's chain, link by link: argument validation, the per-tool rate limit, where a task starts, the timeout, the handler, and results.

import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import { isObject } from '../jsonrpc/types';
import { isAtLeast } from '../versions';
import { isContentBlock, textContent } from './content';
import type { ToolGuardCall } from './guards';
import type { Link, Step } from './item-pipeline';
import type { RequestContext } from './request-context';
import type { CallToolResult } from './results';
import type { CompiledSchema } from '../schema/validator';

type ToolLink = Link<ToolGuardCall>;
/** A tool as its chain's links see it: compiled (registry/tools.ts), before its `run` exists. */
export interface CompiledTool {
  readonly name: string;
  readonly validateInput: CompiledSchema;
  readonly validateOutput: CompiledSchema | undefined;
  /** True when the declared outputSchema is not an object schema: every result value is sent as `{ result: value }`. */
  readonly wrapsResult: boolean;
  readonly handler: (args: Record<string, unknown>, ctx: RequestContext) => unknown;
}

/** Argument validation, after access: a caller who may not use the tool learns nothing of its schema. */
export function validationLink(
  tool: CompiledTool,
  prepare?: (args: Record<string, unknown>) => Record<string, unknown>,
): ToolLink {
  return (rest) =>
    async function validateArguments(call) {
      const args = prepare === undefined ? call.arguments : prepare(call.arguments);
      const input = tool.validateInput(args);
      if (input.ok) return rest(args === call.arguments ? call : { ...call, arguments: args });
      const message = `Invalid arguments for tool '${tool.name}': ${input.message}`;
      // MCP 2025-11-25 tools › Error Handling: input validation errors are tool results; earlier revisions say -32602.
      if (!isAtLeast(call.ctx.protocolVersion, '2025-11-25')) throw new JsonRpcError(ErrorCode.InvalidParams, message);
      return errorResult(message);
    };
}

/**
 * The per-tool rate limit, before every guard: a call refused here costs no guard any work (nor a payment). A store
 * that cannot count (a shared one down) refuses the call too: a limit that fails open would be no limit.
 */
export function rateLimitLink(name: string, take: (ctx: RequestContext) => Promise<number | undefined>): ToolLink {
  return (rest) =>
    async function rateLimited(call) {
      let retryAfter: number | undefined;
      try {
        retryAfter = await take(call.ctx);
      } catch {
        return errorResult(
          `Tool '${name}' cannot check its rate limit now (its store does not answer); try again later`,
        );
      }
      return retryAfter === undefined
        ? rest(call)
        : errorResult(`Tool '${name}' is over its rate limit; try again in ${retryAfter} s`);
    };
}

/**
 * The pipeline's run entry for a call that runs as a task (`taskStart: 'call'`): fires the call's task hook
 * (`ctx.continueAsTask()`) once admitted, after every guard's before step, so a call refused by access, arguments,
 * limits or a guard (a payment required) is answered at once and never makes a task; the timeout and the handler run
 * as the task. On a plain call it goes straight on.
 */
export function taskStartLink(): ToolLink {
  return (rest) =>
    async function startTask(call) {
      await call.ctx.continueAsTask();
      return rest(call);
    };
}

/**
 * The timeout, innermost, around the handler only: the handler gets its own signal, aborted after `timeoutMs`
 * (or with the request's), and the call ends with an `isError` result that guards see like any other.
 */
export function timeoutLink(name: string, timeoutMs: number): ToolLink {
  return (rest) =>
    async function timed(call) {
      const { ctx } = call;
      const controller = new AbortController();
      const forward = (): void => controller.abort(ctx.signal.reason);
      ctx.signal.addEventListener('abort', forward, { once: true });
      // The handler sees the same context, but with the signal that the timeout aborts.
      const timedCtx = Object.create(ctx, { signal: { value: controller.signal } }) as RequestContext;
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<CallToolResult>((resolve) => {
        timer = setTimeout(() => {
          const message = `Tool '${name}' timed out after ${timeoutMs} ms`;
          // Settle first: a handler that answers its abort at once must not win the race.
          resolve(errorResult(message));
          controller.abort(new Error(message));
        }, timeoutMs);
      });
      try {
        return await Promise.race([rest({ ...call, ctx: timedCtx }), expired]);
      } finally {
        clearTimeout(timer);
        ctx.signal.removeEventListener('abort', forward);
      }
    };
}

/** The end of the chain: the handler, what it returned as a result, checked against the outputSchema. */
export function handlerStep(tool: CompiledTool): Step<ToolGuardCall> {
  return async function runHandler(call) {
    let value: unknown;
    try {
      value = await tool.handler(call.arguments as Record<string, unknown>, call.ctx);
    } catch (err) {
      return thrownResult(err);
    }
    const result = toCallToolResult(value, tool.wrapsResult);
    if (tool.validateOutput && !result.isError) {
      // MCP 2025-06-18 tools › Output Schema: structured results MUST conform to the declared schema.
      const output =
        result.structuredContent === undefined
          ? { ok: false as const, message: 'no structured result' }
          : tool.validateOutput(result.structuredContent);
      if (!output.ok)
        return errorResult(
          `Tool '${tool.name}' returned output that does not match its outputSchema: ${output.message}`,
        );
    }
    return result;
  };
}

/** The end of a forwarded tool's chain: the handler returns the other server's result, passed on as it is. */
export function forwardStep(tool: CompiledTool): Step<ToolGuardCall> {
  return async function forward(call) {
    return (await tool.handler(call.arguments as Record<string, unknown>, call.ctx)) as CallToolResult;
  };
}

/** What a handler or guard threw, as a result: a {@link JsonRpcError} is deliberate and goes on as a protocol error. */
export function thrownResult(err: unknown): CallToolResult {
  if (err instanceof JsonRpcError) throw err;
  return errorResult(err instanceof Error ? err.message : String(err));
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
  if (typeof value === 'string')
    return wrap
      ? { content: [textContent(value)], structuredContent: { result: value } }
      : { content: [textContent(value)] };
  if (isContentBlock(value)) return { content: [value] };
  if (isObject(value) && Array.isArray(value.content) && value.content.every(isContentBlock))
    return value as unknown as CallToolResult;
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
  return isObject(value) && !wrap
    ? { content, structuredContent: value }
    : { content, structuredContent: { result: value } };
}

/** A value JSON carries as itself: objects, arrays, finite numbers, booleans and null (not NaN, bigint, functions). */
function isJsonValue(value: unknown): boolean {
  return (
    value === null ||
    typeof value === 'boolean' ||
    typeof value === 'object' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}
