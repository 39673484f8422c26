// The call pipeline's request side (tools/call, prompts/get, resources/read): find the item, enter its pipeline (registry/item-pipeline.ts: the same concern at the registry layer) with the request's admission checks, shape the result.

import { eraPolicy } from '../era-policy';
import type { JsonRpcParams } from '../jsonrpc/types';
import { cacheFields } from '../registry/cache-hint';
import { notFoundError } from '../registry/guards';
import type { CallEntry } from '../registry/item-pipeline';
import type { Registry } from '../registry/registry';
import type { RequestContext } from '../registry/request-context';
import { hiddenFrom } from '../registry/ui-link';
import { HandlerContext, type ClientState } from './handler-context';
import { optionalObject, requireString } from './methods/method-spec';
import { paramHeaderFault } from './era-2026/request-headers';
import { shapeContent, shapeToolResult } from './shaping';
import type { TaskRunner } from './tasks/task-runner';
import { negotiateTask, runOnceAdmitted, type TaskCall } from './tasks/task-methods';

/** An item looked up now, else once the pending first loads are done (an upstream's item asked for early). */
function found<T>(registry: Registry, lookup: () => T | undefined): T | Promise<T | undefined> {
  return lookup() ?? registry.afterLoads(lookup);
}

/**
 * A `tools/call` through the tool's pipeline. The request's part of admission ({@link CallEntry.admit}) runs after
 * access, so a caller who may not use the tool learns nothing from its headers or its task rules: the 2026
 * `Mcp-Param-*` headers (SEP-2243), then the task negotiation (MCP tasks). A call that may run as a task becomes one
 * at the pipeline's run entry (`ctx.continueAsTask()`), once the guards admitted it; the caller then gets the handle.
 *
 * @param tasks - the router's task runner; undefined when no tool may run as a task
 */
export async function serveToolCall(
  registry: Registry,
  tasks: TaskRunner | undefined,
  params: JsonRpcParams,
  ctx: RequestContext,
  client: ClientState,
): Promise<Record<string, unknown>> {
  const name = requireString(params, 'name');
  const args = optionalObject(params, 'arguments') ?? {};
  const tool = await found(registry, () => registry.tools.get(name));
  // SEP-1865 Visibility: to a client that does not render apps an app-only tool does not exist (checked once the
  // tool is found, so an upstream's, which arrives with the first loads, is judged too).
  if (tool === undefined || hiddenFrom(tool, client.clientCapabilities)) throw notFoundError('tool', name, ctx.era);
  const checksHeaders = eraPolicy(ctx.era).mirrorHeaders && tool.headerParams.length > 0;
  const mayRunAsTask = tool.task !== undefined || params.task !== undefined;
  let asTask: TaskCall | undefined;
  const entry: CallEntry | undefined =
    checksHeaders || mayRunAsTask
      ? {
          admit: () => {
            // SEP-2243: a 2026 call mirrors its "x-mcp-header" arguments in Mcp-Param-* headers.
            if (checksHeaders) {
              const fault = paramHeaderFault(tool.headerParams, args, ctx.headers);
              if (fault !== undefined) throw fault;
            }
            if (mayRunAsTask) asTask = negotiateTask(tasks, tool, params, ctx, client);
          },
        }
      : undefined;
  const run = async (): Promise<Record<string, unknown>> =>
    shapeToolResult(await tool.run(args, ctx, entry), ctx.protocolVersion) as unknown as Record<string, unknown>;
  if (!mayRunAsTask || tasks === undefined || !(ctx instanceof HandlerContext)) return run();
  return runOnceAdmitted(tasks, ctx, () => asTask, run);
}

/** A `prompts/get` through the prompt's pipeline: access, argument checks, guards, get; content shaped per revision. */
export async function servePromptGet(
  registry: Registry,
  params: JsonRpcParams,
  ctx: RequestContext,
): Promise<Record<string, unknown>> {
  const name = requireString(params, 'name');
  const prompt = await found(registry, () => registry.prompts.get(name));
  if (prompt === undefined) throw notFoundError('prompt', name, ctx.era);
  const result = await prompt.run(params.arguments, ctx);
  const messages = result.messages.map((message) => ({
    role: message.role,
    content: shapeContent(message.content, ctx.protocolVersion),
  }));
  return { ...result, messages };
}

/** A `resources/read` through the resource's pipeline: access, guards, read; a 2026 read carries its cache hint. */
export async function serveResourceRead(
  registry: Registry,
  params: JsonRpcParams,
  ctx: RequestContext,
): Promise<Record<string, unknown>> {
  const uri = requireString(params, 'uri');
  const match = await found(registry, () => registry.findResource(uri));
  if (match === undefined) throw notFoundError('resource', uri, ctx.era);
  const result = { ...(await match.resource.run(uri, match.variables, ctx)) };
  // MCP 2026-07-28 caching: the resource's own hint; the router's default fills what it leaves out.
  return eraPolicy(ctx.era).resultEnvelope && match.resource.cache !== undefined
    ? { ...cacheFields(match.resource.cache), ...result }
    : result;
}
