// Tools: the definition users register, its compiled form, and its guard chain composed once (links in tool-chain.ts).

import { MAX_TIMER_MS } from '../../options/option-reader';
import { isPositiveInteger, McpConfigError } from '../../options/config-error';
import type { CheckedSchema, CompiledSchema, SchemaValidator } from '../schema/validator';
import { accessRuleOf, type AccessRule } from './access';
import {
  TOOL_KEYS,
  TOOL_NESTED_KEYS,
  TOOL_WIRE_FIELDS,
  type TaskSupport,
  type ToolDefinition,
} from './tool-definition';
import { objectSchema, wrappedSchema, wrapsOutput, type JsonSchema } from './tool-schemas';
import { headerParamsOf, NO_HEADER_PARAMS, X_MCP_HEADER, type HeaderParam } from './header-params';
import { createCallLimiter, type CallLimitStores } from './call-limit';
import type { RequestContext } from './request-context';
import {
  forwardStep,
  handlerStep,
  rateLimitLink,
  taskStartLink,
  thrownResult,
  timeoutLink,
  validationLink,
} from './tool-chain';
import type { PaymentLedger } from './payment-ledger';
import { checkDefinitionObject, checkFunction, copyJson, itemLabel, rejectUnknownDefinitionKeys } from './definition';
import type { CallToolResult, ToolDescriptor } from './results';
import { guardsListMeta, type Guard, type ToolGuardCall } from './guards';
import { composePipeline, guardLinks, type CallEntry } from './item-pipeline';
import type { ResolvedUiLink } from './ui-link';

export type { CallToolResult, ToolDescriptor } from './results';
export { errorResult, jsonResult, toCallToolResult } from './tool-chain';

export type { JsonSchema } from './tool-schemas';
export { TOOL_WIRE_FIELDS, type TaskSupport, type ToolAnnotations, type ToolDefinition } from './tool-definition';

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
  /** The arguments its inputSchema marks `"x-mcp-header"`: a 2026 call must mirror them in `Mcp-Param-*` headers. */
  readonly headerParams: readonly HeaderParam[];
  /** Whether a call may (or must) run as a task; undefined for never. */
  readonly task: TaskSupport | undefined;
  /** Its link to an MCP App, checked; undefined for none. */
  readonly ui: ResolvedUiLink | undefined;
  /** When such a call becomes a task: at once, or when its handler calls `ctx.continueAsTask()`. */
  readonly taskStart: 'call' | 'handler';
  /** Runs a call through the tool's pipeline, composed at registration (see {@link Guard} for its order). */
  readonly run: (args: Record<string, unknown>, ctx: RequestContext, entry?: CallEntry) => Promise<CallToolResult>;
}

/** What the router lends every tool it compiles. */
export interface ToolServices {
  /** Where a `rateLimit` without a `store` counts (the router's shared store); undefined: in memory. */
  readonly limitStores?: CallLimitStores;
  /** The router's payment ledger, handed to guards on every call (`call.payments`). */
  readonly payments?: PaymentLedger;
}

/**
 * How a tool is served. `forwarded`: another MCP server (a gateway's upstream) runs it and is the authority on its
 * schemas: they are listed as it sent them and not compiled here, and its result is passed on as it came. `ui`: its
 * `ui` option, checked against the registry's apps.
 */
export interface ToolMode {
  readonly forwarded?: true;
  readonly ui?: ResolvedUiLink;
  /**
   * The arguments the schema is checked against, and the rest of the chain gets, made from the caller's (a new
   * object when anything changes: never the caller's). A bridged route's: its path and query values as the wire
   * carries them.
   */
  readonly prepare?: (args: Record<string, unknown>) => Record<string, unknown>;
}

const ANY_VALUE: CompiledSchema = () => ({ ok: true });

/** MCP 2025-11-25 tools › Tool Names: 1–128 characters of A-Z a-z 0-9 _ . - (the doctor checks other servers' names with it). */
export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const NO_ARGUMENTS_SCHEMA: JsonSchema = { type: 'object', additionalProperties: false };

/** What a checked tool definition settles besides its schemas: its name, and when and how it runs as a task. */
interface ToolRules {
  readonly name: string;
  readonly task: TaskSupport | undefined;
  readonly taskStart: 'call' | 'handler';
  readonly timeoutMs: number | undefined;
}

/**
 * Checks what a tool definition must be: an object of known keys, a valid name, a description, a handler, and
 * consistent task settings and timeout.
 *
 * @throws {McpConfigError} naming the tool and what is wrong
 */
function checkToolDefinition(definition: ToolDefinition<never>): ToolRules {
  checkDefinitionObject(definition, 'tool');
  rejectUnknownDefinitionKeys(definition, TOOL_KEYS, itemLabel('tool', definition.name), TOOL_NESTED_KEYS);
  const { name, description } = definition;
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
    throw new McpConfigError(
      'ERR_MCP_INVALID_NAME',
      `tool name ${JSON.stringify(name)} is invalid: use 1–128 characters of A-Z a-z 0-9 _ . -`,
    );
  }
  const invalid = (message: string): McpConfigError =>
    new McpConfigError('ERR_MCP_INVALID_DEFINITION', `tool '${name}' ${message}`);
  if (typeof description !== 'string' || description.trim() === '')
    throw invalid('needs a description: models pick tools by reading it');
  checkFunction(definition.handler, `tool '${name}'`, 'handler');
  const { timeoutMs, task, taskStart = 'call' } = definition;
  if (task !== undefined && task !== 'optional' && task !== 'required')
    throw invalid(`task must be 'optional' or 'required', got ${JSON.stringify(task)}`);
  if (taskStart !== 'call' && taskStart !== 'handler')
    throw invalid(`taskStart must be 'call' or 'handler', got ${JSON.stringify(taskStart)}`);
  if (taskStart === 'handler' && task === undefined)
    throw invalid("taskStart: 'handler' needs task: 'optional' or 'required'");
  // Node runs a timer longer than 2^31 - 1 ms after 1 ms.
  if (timeoutMs !== undefined && (!isPositiveInteger(timeoutMs) || timeoutMs > MAX_TIMER_MS))
    throw invalid('timeoutMs must be a positive number of milliseconds');
  return { name, task, taskStart, timeoutMs };
}

/** The schemas a definition declares, checked as MCP wants them: an object schema in, any schema out (see wrapsOutput). */
function declaredSchemas(
  definition: ToolDefinition<never>,
  { name }: ToolRules,
  mode: ToolMode | undefined,
): { readonly input: JsonSchema; readonly output: JsonSchema | undefined; readonly wrapsResult: boolean } {
  const input = objectSchema(definition.inputSchema ?? NO_ARGUMENTS_SCHEMA, `tool '${name}' inputSchema`);
  const declared = definition.outputSchema;
  // wrapsOutput has checked the schema: an object schema as declared, any other sent as { result: schema }.
  const wrapsResult =
    declared !== undefined && mode?.forwarded !== true && wrapsOutput(declared, `tool '${name}' outputSchema`);
  return {
    input,
    output: declared === undefined ? undefined : wrapsResult ? wrappedSchema(declared) : declared,
    wrapsResult,
  };
}

/** The tool's `tools/list` entry; its schemas are the checked copies given, the rest of its JSON fields copied here. */
function describeTool(
  definition: ToolDefinition<never>,
  { task }: ToolRules,
  mode: ToolMode | undefined,
  schemas: { readonly inputSchema: unknown; readonly outputSchema: unknown },
): ToolDescriptor {
  const checked = mode?.forwarded !== true;
  // One object, in the wire fields' order: a registration allocates the entry and little else.
  const entry: Record<string, unknown> = {};
  for (const key of Object.keys(TOOL_WIRE_FIELDS) as Array<keyof typeof TOOL_WIRE_FIELDS>) {
    const value =
      key === 'inputSchema' || key === 'outputSchema'
        ? schemas[key]
        : key === '_meta'
          ? // Guards may advertise what they do to callers (x402Guard: the price), before the call.
            guardsListMeta(definition.guards, mode?.ui ? { ...definition._meta, ...mode.ui.meta } : definition._meta)
          : definition[key];
    if (value !== undefined) entry[key] = checked && CHECKED_COPIES.has(key) ? value : copyJson(value);
  }
  // MCP 2025-11-25 tools › execution.taskSupport (shaping drops it for other revisions).
  if (task !== undefined) entry.execution = { taskSupport: task };
  return Object.freeze(entry) as ToolDescriptor;
}

/** The descriptor fields that are the validator's copies already (shared by identical schemas, frozen). */
const CHECKED_COPIES: ReadonlySet<string> = new Set(['inputSchema', 'outputSchema']);

/** `"x-mcp-header"` can only be declared in a schema whose JSON text names it. */
function headerParamsOfChecked(input: CheckedSchema, label: string): readonly HeaderParam[] {
  return input.json.includes(`"${X_MCP_HEADER}"`)
    ? headerParamsOf(input.schema as JsonSchema, label)
    : NO_HEADER_PARAMS;
}

/**
 * Checks and compiles a tool definition; the schemas are copied, so later changes to the caller's objects
 * change neither validation nor `tools/list`.
 *
 * @param routerGuards - the router's `guards`, run before the tool's own
 * @param services - what the router lends every tool: where its `rateLimit` counts, the payment ledger its guards see
 * @throws {McpConfigError} for an unknown key, a bad name, a missing description or handler, a schema that is not an
 *   object schema, an invalid `"x-mcp-header"` argument, or bad guards
 */
export function defineTool(
  definition: ToolDefinition<never>,
  validator: SchemaValidator,
  routerGuards: readonly Guard[] = [],
  mode?: ToolMode,
  services: ToolServices = {},
): RegisteredTool {
  const rules = checkToolDefinition(definition);
  const { name, task, taskStart, timeoutMs } = rules;
  const declared = declaredSchemas(definition, rules, mode);
  const forwarded = mode?.forwarded === true;
  const label = `tool '${name}'`;
  const access = accessRuleOf(definition, label);
  const limiter =
    definition.rateLimit === undefined
      ? undefined
      : createCallLimiter(definition.rateLimit, name, label, services.limitStores);
  // An upstream's schemas are listed as it sent them, not compiled here (see ToolMode.forwarded).
  const input = forwarded ? undefined : validator.check(declared.input, `${label} inputSchema`);
  const output =
    forwarded || declared.output === undefined ? undefined : validator.check(declared.output, `${label} outputSchema`);
  // What is validated is exactly what tools/list shows: the same copies.
  const descriptor = describeTool(definition, rules, mode, {
    inputSchema: input?.schema ?? declared.input,
    outputSchema: forwarded ? declared.output : output?.schema,
  });
  const compiled = {
    name,
    descriptor,
    validateInput: input?.validate ?? ANY_VALUE,
    validateOutput: output?.validate,
    wrapsResult: declared.wrapsResult,
    handler: definition.handler.bind(definition) as RegisteredTool['handler'],
    access,
    headerParams:
      input === undefined
        ? headerParamsOf(descriptor.inputSchema as JsonSchema, label)
        : headerParamsOfChecked(input, label),
    task,
    taskStart,
    ui: mode?.ui,
  };
  // The pipeline, composed once: a tool with no rule, limit, guard or timeout runs validate → handler and no more.
  const pipeline = composePipeline<ToolGuardCall>({
    access,
    checks: [
      forwarded ? undefined : validationLink(compiled, mode?.prepare),
      limiter && rateLimitLink(name, limiter.take),
    ],
    guards: guardLinks<ToolGuardCall>(routerGuards, definition.guards, label, thrownResult),
    run: [
      task !== undefined && taskStart === 'call' ? taskStartLink() : undefined,
      timeoutMs === undefined ? undefined : timeoutLink(name, timeoutMs),
    ],
    terminal: forwarded ? forwardStep(compiled) : handlerStep(compiled),
  });
  const tool: Omit<RegisteredTool, 'run'> & { run?: RegisteredTool['run'] } = compiled;
  tool.run = (args, ctx, entry) =>
    pipeline(
      { kind: 'tool', name, arguments: args, meta: ctx.meta, descriptor, ctx, payments: services.payments },
      entry,
    );
  return Object.freeze(tool as RegisteredTool);
}

/**
 * Calls a tool through its pipeline: a denied caller gets the error of an unknown tool; arguments that fail the
 * schema, and handlers or guards that throw, become `isError` results (MCP 2025-11-25 tools › Error Handling);
 * before 2025-11-25 invalid arguments are a -32602 error.
 */
export function callTool(
  tool: RegisteredTool,
  args: Record<string, unknown>,
  ctx: RequestContext,
): Promise<CallToolResult> {
  return tool.run(args, ctx);
}
