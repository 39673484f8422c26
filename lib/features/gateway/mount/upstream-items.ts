// An upstream's list entries as the router's own items: definitions whose handlers forward to the upstream, under the downstream names.

import { ErrorCode, JsonRpcError } from '../../../core/jsonrpc/errors';
import { isObject } from '../../../core/jsonrpc/types';
import type { Completer } from '../../../core/registry/completion';
import type { HeaderParam } from '../../../core/registry/header-params';
import { pickFields } from '../../../core/registry/definition';
import { PROMPT_WIRE_FIELDS, type PromptDefinition } from '../../../core/registry/prompts';
import type { RequestContext } from '../../../core/registry/request-context';
import {
  RESOURCE_WIRE_FIELDS,
  TEMPLATE_WIRE_FIELDS,
  type ResourceDefinition,
  type ResourceTemplateDefinition,
} from '../../../core/registry/resources';
import { notFoundError } from '../../../core/registry/guards';
import { errorResult, TOOL_WIRE_FIELDS, type ToolDefinition } from '../../../core/registry/tools';
import { forwardedUiLink } from '../../../core/registry/ui-link';
import { parseUriTemplate } from '../../../core/registry/uri-template';
import { encodeHeaderValue } from '../../../core/protocol/era-2026/request-headers';
import { badName, rewritePromptResult, rewriteReadResult, rewriteToolResult, type Naming } from './prefixed-names';
import { forwardedMeta, forwardRequest, type UpstreamTarget } from './upstream-call';
import { CallerTokenError } from '../shared/upstream-wire';
import type { ItemBuilders } from './upstream-sync';

/** What the definitions of one upstream's items share: where calls go, and the upstream's names. */
export interface UpstreamSource extends UpstreamTarget {
  readonly naming: Naming;
}

type Entry = Record<string, unknown>;

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * `Mcp-Param-*` headers for the arguments a 2026 upstream's tool marks `x-mcp-header` (MCP 2026-07-28 transports ›
 * Custom Headers from Tool Parameters): the upstream checks them like any client's.
 */
function paramHeaders(params: readonly HeaderParam[], args: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const param of params) {
    let value: unknown = args;
    for (const key of param.path) value = isObject(value) ? value[key] : undefined;
    if (typeof value === 'string') headers[param.header] = encodeHeaderValue(value);
    else if (typeof value === 'boolean' || (typeof value === 'number' && Number.isInteger(value)))
      headers[param.header] = String(value);
  }
  return headers;
}

/** Turns what is not a protocol error (an ask the caller cannot answer) into one naming the upstream. */
function asProtocolError(error: unknown, label: string): JsonRpcError {
  if (error instanceof JsonRpcError) return error;
  if (error instanceof CallerTokenError) return new JsonRpcError(ErrorCode.InternalError, error.message);
  return new JsonRpcError(
    ErrorCode.InternalError,
    `Upstream "${label}": ${error instanceof Error ? error.message : 'the request failed'}`,
  );
}

/**
 * A tool of the upstream. Its handler forwards the call (original name, arguments, `_meta`) and passes the result
 * on with its resource URIs rewritten; the upstream's JSON-RPC errors go on as they came.
 *
 * @param headerParamsOf - the registered tool's `x-mcp-header` arguments, known once it is defined
 */
export function toolDefinition(
  source: UpstreamSource,
  entry: Entry & { name: string },
  headerParamsOf: () => readonly HeaderParam[],
): ToolDefinition<never> {
  const { options, naming } = source;
  const original = entry.name;
  const guards = Object.hasOwn(options.guards, original) ? options.guards[original] : undefined;
  const paidHere = guards !== undefined && guards.length > 0;
  return {
    ...(pickFields(entry, TOOL_WIRE_FIELDS) as Partial<ToolDefinition<never>>),
    name: naming.name(original),
    // A model picks tools by their description: an upstream that gave none gets its title or name.
    description: text(entry.description) || text(entry.title) || original,
    inputSchema: isObject(entry.inputSchema) ? entry.inputSchema : { type: 'object' },
    outputSchema: isObject(entry.outputSchema) ? entry.outputSchema : undefined,
    guards,
    scopes: options.scopes,
    handler: async (args: Record<string, unknown>, ctx: RequestContext) => {
      const params = { name: original, arguments: args, _meta: forwardedMeta(ctx.meta, paidHere) };
      try {
        const result = await forwardRequest(
          source,
          'tools/call',
          params,
          ctx,
          paramHeaders(headerParamsOf(), args),
          paidHere,
        );
        return rewriteToolResult(result, naming);
      } catch (error) {
        // MCP tools › Error Handling: what the upstream answered as an error stays one; an ask the caller could not
        // answer (a capability it lacks) is the tool's failure, for the model to read.
        if (error instanceof JsonRpcError) throw error;
        return errorResult(error instanceof Error ? error.message : 'The call failed');
      }
    },
  } as ToolDefinition<never>;
}

/** A completer forwarding `completion/complete` for one argument of an upstream prompt or template. */
function forwardCompleter(source: UpstreamSource, ref: Record<string, string>, argument: string): Completer {
  return async (value, context, ctx) => {
    try {
      const result = await forwardRequest(
        source,
        'completion/complete',
        { ref, argument: { name: argument, value }, context: { arguments: context.arguments } },
        ctx,
      );
      const completion = isObject(result.completion) ? result.completion : {};
      return {
        values: Array.isArray(completion.values)
          ? completion.values.filter((item): item is string => typeof item === 'string')
          : [],
        total: typeof completion.total === 'number' ? completion.total : undefined,
        hasMore: completion.hasMore === true ? true : undefined,
      };
    } catch (error) {
      // An upstream without completions has no suggestions; any other failure is the caller's to see.
      if (error instanceof JsonRpcError && error.code === ErrorCode.MethodNotFound) return [];
      throw asProtocolError(error, source.options.name);
    }
  };
}

/** A prompt of the upstream; its get forwards, and each argument completes through the upstream. */
export function promptDefinition(source: UpstreamSource, entry: Entry & { name: string }): PromptDefinition<never> {
  const original = entry.name;
  const declared = Array.isArray(entry.arguments) ? entry.arguments.filter(isObject) : [];
  return {
    ...(pickFields(entry, PROMPT_WIRE_FIELDS) as Partial<PromptDefinition<never>>),
    name: source.naming.name(original),
    scopes: source.options.scopes,
    arguments: declared.map((arg) => ({
      name: String(arg.name),
      title: text(arg.title),
      description: text(arg.description),
      required: arg.required === true ? true : undefined,
      complete: forwardCompleter(source, { type: 'ref/prompt', name: original }, String(arg.name)),
    })),
    get: async (args: Record<string, string>, ctx: RequestContext) => {
      try {
        const result = await forwardRequest(
          source,
          'prompts/get',
          { name: original, arguments: args, _meta: forwardedMeta(ctx.meta, false) },
          ctx,
        );
        return rewritePromptResult(result, source.naming) as never;
      } catch (error) {
        throw asProtocolError(error, source.options.name);
      }
    },
  } as PromptDefinition<never>;
}

/** An upstream's "resource not found", in either era's form. */
function isResourceNotFound(error: JsonRpcError): boolean {
  return (
    error.code === ErrorCode.ResourceNotFound ||
    (error.code === ErrorCode.InvalidParams && isObject(error.data) && typeof error.data.uri === 'string')
  );
}

async function readUpstream(
  source: UpstreamSource,
  exposedUri: string,
  ctx: RequestContext,
): Promise<{ contents: never[] }> {
  const uri = source.naming.originalUri(exposedUri) ?? exposedUri;
  try {
    const result = await forwardRequest(source, 'resources/read', { uri, _meta: forwardedMeta(ctx.meta, false) }, ctx);
    return rewriteReadResult(result, source.naming) as { contents: never[] };
  } catch (error) {
    // An unknown resource is the caller's era's error about the caller's URI (MCP resources › Error Handling: 2025
    // -32002; 2026-07-28 -32602 with data.uri), whichever era the upstream speaks.
    if (error instanceof JsonRpcError && isResourceNotFound(error)) {
      const { code } = notFoundError('resource', exposedUri, ctx.era);
      throw new JsonRpcError(code, error.message, { ...(isObject(error.data) ? error.data : {}), uri: exposedUri });
    }
    throw asProtocolError(error, source.options.name);
  }
}

/** A resource of the upstream, under its downstream URI; a read forwards the original URI. */
export function resourceDefinition(source: UpstreamSource, entry: Entry & { uri: string }): ResourceDefinition {
  return {
    ...(pickFields(entry, RESOURCE_WIRE_FIELDS) as Partial<ResourceDefinition>),
    uri: source.naming.uri(entry.uri),
    name: text(entry.name) || entry.uri,
    size: typeof entry.size === 'number' ? entry.size : undefined,
    scopes: source.options.scopes,
    read: (uri, ctx) => readUpstream(source, uri, ctx),
  } as ResourceDefinition;
}

/** A resource template of the upstream, under its downstream template; its variables complete through the upstream. */
export function templateDefinition(
  source: UpstreamSource,
  entry: Entry & { uriTemplate: string },
): ResourceTemplateDefinition<never> {
  const variables = parseUriTemplate(entry.uriTemplate).variableNames;
  const ref = { type: 'ref/resource', uri: entry.uriTemplate };
  return {
    ...(pickFields(entry, TEMPLATE_WIRE_FIELDS) as Partial<ResourceTemplateDefinition<never>>),
    uriTemplate: source.naming.uri(entry.uriTemplate),
    name: text(entry.name) || entry.uriTemplate,
    scopes: source.options.scopes,
    complete: Object.fromEntries(variables.map((variable) => [variable, forwardCompleter(source, ref, variable)])),
    read: (uri: string, _variables: never, ctx: RequestContext) => readUpstream(source, uri, ctx),
  } as ResourceTemplateDefinition<never>;
}

/**
 * How one upstream's entries become the router's items (applied by upstream-sync.ts): definitions that forward to it,
 * under its downstream names, listed in its mount order `group`.
 *
 * @param holderName - how a skip reason names the upstream mounted as another group: `upstream 'a'`
 */
export function itemBuilders(
  source: UpstreamSource,
  group: number,
  holderName: (group: number) => string,
): ItemBuilders {
  const { naming } = source;
  return {
    tool: (entry, headerParamsOf) => toolDefinition(source, entry, headerParamsOf),
    toolUi: (entry) => forwardedUiLink(entry._meta, naming.uri),
    prompt: (entry) => promptDefinition(source, entry),
    resource: (entry) => resourceDefinition(source, entry),
    template: (entry) => templateDefinition(source, entry),
    name: naming.name,
    checkName: badName,
    group,
    holderName,
  };
}
