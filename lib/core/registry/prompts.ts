// Prompts: the definition users register, and its guard chain (access → argument checks → guards → get → messages).

import { McpConfigError, rejectUnknownKeys, type OptionKeys } from '../../options/config-error';
import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import { isObject } from '../jsonrpc/types';
import { isContentBlock, textContent, type ContentBlock } from './content';
import { accessRuleOf, type AccessRule } from './access';
import type { RequestContext } from './request-context';
import { checkCompleter, type Completer } from './completion';
import {
  checkDefinitionObject,
  checkFunction,
  checkName,
  copyDefined,
  itemLabel,
  pickFields,
  rejectUnknownDefinitionKeys,
  type Icon,
} from './definition';
import type { GetPromptResult } from './results';
import type { Guard, PromptGuard, PromptGuardCall } from './guards';
import { composePipeline, guardLinks, type CallEntry, type Link, type Step } from './item-pipeline';

export type { GetPromptResult } from './results';

/** One argument a prompt takes. */
export interface PromptArgument {
  /** The argument's name, the key it has in `get`'s `args`. */
  name: string;
  /** A display name for people. Defaults to none. */
  title?: string;
  /** What the argument means, for the user filling it in. Defaults to none. */
  description?: string;
  /** Whether `prompts/get` without it is refused (-32602). Defaults to `false`. */
  required?: boolean;
  /** Suggests values for this argument (`completion/complete`). */
  complete?: Completer;
}

/** One message of a prompt; `content` may be a plain string (→ a text block). */
export interface PromptMessage {
  /** Who says it: the user or the model (`assistant`). */
  role: 'user' | 'assistant';
  /** What is said: a content block, or a string for a text block. */
  content: ContentBlock | string;
}

/** What a prompt's `get` may return: text (one user message), messages, or `{ description?, messages }`. */
export type PromptValue =
  | string
  | PromptMessage[]
  | {
      /** What the prompt is for, sent with its messages. */
      description?: string;
      /** The messages, in order. */
      messages: PromptMessage[];
    };

/** A prompt as registered with `mcp.prompt()`. */
export interface PromptDefinition<
  Args extends Record<string, string | undefined> = Record<string, string | undefined>,
> extends AccessRule {
  /** The prompt's name, unique on the router, that clients get it by. */
  name: string;
  /** A display name for people. Defaults to none. */
  title?: string;
  /** What the prompt is for, shown in lists. Defaults to none. */
  description?: string;
  /** The arguments it takes, listed for clients and checked before `get` runs. Defaults to none. */
  arguments?: PromptArgument[];
  /** Icons a client may show beside it (MCP 2025-11-25). Defaults to none. */
  icons?: Icon[];
  /** Extra data listed with it, for clients that know its keys. Defaults to none. */
  _meta?: Record<string, unknown>;
  /**
   * Guards around each get, after the argument checks and the router's `guards` (see {@link Guard} for the
   * whole order): they may let a get through, end it with messages or a JSON-RPC error, or change its result.
   * Defaults to none.
   */
  guards?: ReadonlyArray<PromptGuard>;
  /** Builds the messages from the (string) arguments the client sent. */
  get(args: Args, ctx: RequestContext): PromptValue | Promise<PromptValue>;
}

/**
 * The fields of an MCP Prompt (schema 2025-11-25 and 2026-07-28 › Prompt) a definition gives as they go on the wire:
 * `prompts/list` shows them (`arguments` as {@link PROMPT_ARGUMENT_WIRE_FIELDS}), and a gateway takes them from an
 * upstream's entry.
 */
export const PROMPT_WIRE_FIELDS = {
  name: true,
  title: true,
  description: true,
  arguments: true,
  icons: true,
  _meta: true,
} as const satisfies Partial<OptionKeys<PromptDefinition>>;
const PROMPT_KEYS: OptionKeys<PromptDefinition> = {
  ...PROMPT_WIRE_FIELDS,
  scopes: true,
  canAccess: true,
  guards: true,
  get: true,
};
/** The fields of an MCP PromptArgument (schema › PromptArgument): each argument as `prompts/list` shows it. */
export const PROMPT_ARGUMENT_WIRE_FIELDS = {
  name: true,
  title: true,
  description: true,
  required: true,
} as const satisfies Partial<OptionKeys<PromptArgument>>;
const PROMPT_ARGUMENT_KEYS: OptionKeys<PromptArgument> = { ...PROMPT_ARGUMENT_WIRE_FIELDS, complete: true };

/** A prompt, checked. */
export interface RegisteredPrompt {
  readonly name: string;
  readonly descriptor: Readonly<Record<string, unknown>>;
  readonly description: string | undefined;
  readonly arguments: readonly PromptArgument[];
  readonly completers: ReadonlyMap<string, Completer>;
  readonly get: (args: Record<string, string>, ctx: RequestContext) => PromptValue | Promise<PromptValue>;
  /** Who may list and get it; undefined for everyone. */
  readonly access: AccessRule | undefined;
  /** Gets the prompt through its pipeline, composed at registration (see {@link Guard} for its order). */
  readonly run: (rawArgs: unknown, ctx: RequestContext, entry?: CallEntry) => Promise<GetPromptResult>;
}

/**
 * @param routerGuards - the router's `guards`, run before the prompt's own
 * @throws {McpConfigError} for an unknown key, a bad name, a missing `get`, bad or duplicate arguments, or bad guards
 */
export function definePrompt(
  definition: PromptDefinition<never>,
  routerGuards: readonly Guard[] = [],
): RegisteredPrompt {
  checkDefinitionObject(definition, 'prompt');
  const label = itemLabel('prompt', definition.name);
  rejectUnknownDefinitionKeys(definition, PROMPT_KEYS, label);
  checkName(definition.name, 'prompt');
  const { name } = definition;
  checkFunction(definition.get, `prompt '${name}'`, 'get');
  const args = definition.arguments ?? [];
  if (!Array.isArray(args))
    throw new McpConfigError('ERR_MCP_INVALID_DEFINITION', `prompt '${name}' arguments must be an array`);
  const completers = new Map<string, Completer>();
  const seen = new Set<string>();
  for (const [index, arg] of args.entries()) {
    checkDefinitionObject(arg, `prompt '${name}' argument`);
    rejectUnknownKeys(arg, PROMPT_ARGUMENT_KEYS, `arguments[${index}].`, { item: label });
    checkName(arg.name, `prompt '${name}' argument`);
    if (seen.has(arg.name))
      throw new McpConfigError('ERR_MCP_DUPLICATE', `prompt '${name}' declares argument '${arg.name}' twice`);
    seen.add(arg.name);
    checkCompleter(arg.complete, `prompt '${name}' argument '${arg.name}'`);
    if (arg.complete) completers.set(arg.name, arg.complete);
  }
  const listedArgs = args.map((arg) => copyDefined(pickFields(arg, PROMPT_ARGUMENT_WIRE_FIELDS)));
  const descriptor = copyDefined({
    ...pickFields(definition, PROMPT_WIRE_FIELDS),
    arguments: listedArgs.length > 0 ? listedArgs : undefined,
  });
  const prompt = {
    name,
    descriptor,
    description: definition.description,
    arguments: args.map((arg) => ({ ...arg })),
    completers,
    get: definition.get.bind(definition) as RegisteredPrompt['get'],
    access: accessRuleOf(definition, `prompt '${name}'`),
  };
  const pipeline = composePipeline<PromptGuardCall>({
    access: prompt.access,
    checks: [argumentsLink(prompt)],
    guards: guardLinks<PromptGuardCall>(routerGuards, definition.guards, `prompt '${name}'`),
    run: [],
    terminal: getStep(prompt),
  });
  return Object.freeze({
    ...prompt,
    // The raw arguments travel as the call's until argumentsLink has checked them (access comes first).
    run: (rawArgs: unknown, ctx: RequestContext, entry?: CallEntry) =>
      pipeline(
        { kind: 'prompt', name, arguments: rawArgs as Record<string, string>, meta: ctx.meta, descriptor, ctx },
        entry,
      ),
  });
}

/**
 * Gets a prompt through its pipeline: a denied caller gets the error of an unknown prompt; a missing required
 * argument or a non-string value is -32602 (MCP prompts › Error Handling).
 */
export function getPrompt(prompt: RegisteredPrompt, rawArgs: unknown, ctx: RequestContext): Promise<GetPromptResult> {
  return prompt.run(rawArgs, ctx);
}

type CompiledPrompt = Omit<RegisteredPrompt, 'run'>;

/** The argument checks, after access: guards and `get` see the declared arguments only, all strings. */
function argumentsLink(prompt: CompiledPrompt): Link<PromptGuardCall> {
  return (rest) =>
    async function checkArguments(call) {
      const rawArgs: unknown = call.arguments;
      if (rawArgs !== undefined && !isObject(rawArgs)) {
        throw new JsonRpcError(
          ErrorCode.InvalidParams,
          `Invalid params: arguments of prompt '${prompt.name}' must be an object of strings`,
        );
      }
      const args: Record<string, string> = {};
      for (const declared of prompt.arguments) {
        // Own properties only: an argument named 'constructor' must not find Object.prototype's.
        const value =
          rawArgs !== undefined && Object.hasOwn(rawArgs, declared.name) ? rawArgs[declared.name] : undefined;
        if (value === undefined || value === null) {
          if (declared.required)
            throw new JsonRpcError(
              ErrorCode.InvalidParams,
              `Missing required argument '${declared.name}' for prompt '${prompt.name}'`,
            );
          continue;
        }
        if (typeof value !== 'string')
          throw new JsonRpcError(
            ErrorCode.InvalidParams,
            `Argument '${declared.name}' of prompt '${prompt.name}' must be a string`,
          );
        args[declared.name] = value;
      }
      return rest({ ...call, arguments: args });
    };
}

/** The end of the chain: `get`, and what it returned as messages (a throw goes on to the dispatcher: -32603). */
function getStep(prompt: CompiledPrompt): Step<PromptGuardCall> {
  return async function runGet(call) {
    return toGetPromptResult(await prompt.get(call.arguments as Record<string, string>, call.ctx), prompt.description);
  };
}

function toGetPromptResult(value: PromptValue, description: string | undefined): GetPromptResult {
  const messages =
    typeof value === 'string'
      ? [{ role: 'user' as const, content: value }]
      : Array.isArray(value)
        ? value
        : value.messages;
  const result: GetPromptResult = {
    messages: messages.map((message) => ({
      role: message.role,
      content: typeof message.content === 'string' ? textContent(message.content) : message.content,
    })),
  };
  for (const message of result.messages) {
    if ((message.role !== 'user' && message.role !== 'assistant') || !isContentBlock(message.content)) {
      throw new TypeError('a prompt message needs role "user" or "assistant" and a content block or string');
    }
  }
  const text = typeof value === 'object' && !Array.isArray(value) ? (value.description ?? description) : description;
  if (text !== undefined) result.description = text;
  return result;
}
