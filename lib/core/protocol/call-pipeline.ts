// The call pipeline's request side (tools/call, prompts/get, resources/read): find the item, enter its pipeline (registry/item-pipeline.ts: the same concern at the registry layer) with the request's admission checks, shape the result.

import { eraPolicy } from '../era-policy';
import type { JsonRpcParams } from '../jsonrpc/types';
import { cacheFields } from '../registry/cache-hint';
import { notFoundError } from '../registry/guards';
import type { CallEntry } from '../registry/item-pipeline';
import type { Registry } from '../registry/registry';
import type { RequestContext } from '../registry/request-context';
import { hiddenFrom } from '../registry/ui-link';
import type { CallLine } from './call-line';
import type { ClientState } from './handler-context';
import { optionalObject, requireString } from './methods/method-spec';
import { paramHeaderFault } from './era-2026/request-headers';
import { shapeContent, shapeToolResult } from './shaping';
import type { TaskRunner } from './tasks/task-runner';
import { negotiateTask, taskHandle, type TaskCall } from './tasks/task-methods';

/** An item looked up now, else once the pending first loads are done (an upstream's item asked for early). */
function lookupAfterLoads<T>(registry: Registry, lookup: () => T | undefined): T | Promise<T | undefined> {
  return lookup() ?? registry.afterLoads(lookup);
}

/**
 * A `tools/call` through the tool's pipeline. The request's part of admission ({@link CallEntry.admit}) runs after
 * access, so a caller who may not use the tool learns nothing from its headers or its task rules: the 2026
 * `Mcp-Param-*` headers (SEP-2243), then the task negotiation (MCP tasks). A call that may run as a task becomes one
 * through the task hook ({@link runMaybeAsTask}), once the guards admitted it; the caller then gets the handle.
 *
 * @param tasks - the router's task runner; undefined when no tool may run as a task
 * @param line - the call's line, which the task hook moves onto the task
 */
export async function serveToolCall(
  registry: Registry,
  tasks: TaskRunner | undefined,
  params: JsonRpcParams,
  ctx: RequestContext,
  client: ClientState,
  line: CallLine,
): Promise<Record<string, unknown>> {
  const name = requireString(params, 'name');
  const args = optionalObject(params, 'arguments') ?? {};
  const tool = await lookupAfterLoads(registry, () => registry.tools.get(name));
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
  if (!mayRunAsTask || tasks === undefined) return run();
  return runMaybeAsTask(tasks, line, () => asTask, run);
}

/**
 * Runs a call that may become a task, through the pipeline's task hook (call-line.ts) with the TaskRunner's
 * `startTask`. It runs as a plain call until admitted: its access, headers, task negotiation, arguments, rate limit
 * and guards answer synchronously (an unknown-tool error, an `isError` result, a payment-required result), so only an
 * admitted call makes a task. The hook fires at the pipeline's run entry: the tool's task start (registry/tool-chain.ts,
 * after the guards, before the timeout and the handler), or, with `taskStart: 'handler'` (SEP-2663 MRTR → tasks
 * composition), the handler's own `ctx.continueAsTask()`, its asks before that being the call's (`input_required` in
 * 2026). Then the caller gets the task's handle, and what the pipeline returns (the guards' after steps included: a
 * payment is settled on the task's result) becomes the task's result. A call that ends first, or that the
 * negotiation left plain (`admitted()` undefined), answers plainly.
 *
 * @param admitted - the task the negotiation decided on, read when the hook fires (admission has run by then)
 */
async function runMaybeAsTask(
  runner: TaskRunner,
  line: CallLine,
  admitted: () => TaskCall | undefined,
  run: () => Promise<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  let outcome: Promise<Record<string, unknown>> | undefined;
  const madeTask = line.onTaskStart(async () => {
    const task = admitted();
    if (task === undefined) return undefined;
    // `outcome` is set: the handler runs inside it, so the hook can only fire after run() started.
    const started = await runner.startTask(task.start, () => outcome as Promise<Record<string, unknown>>);
    return { route: started.route, handle: taskHandle(started.record, task.viaExtension) };
  });
  outcome = run();
  const first = await Promise.race([outcome.then((result) => ({ result })), madeTask.then((handle) => ({ handle }))]);
  return 'handle' in first ? first.handle : first.result;
}

/** A `prompts/get` through the prompt's pipeline: access, argument checks, guards, get; content shaped per revision. */
export async function servePromptGet(
  registry: Registry,
  params: JsonRpcParams,
  ctx: RequestContext,
): Promise<Record<string, unknown>> {
  const name = requireString(params, 'name');
  const prompt = await lookupAfterLoads(registry, () => registry.prompts.get(name));
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
  const match = await lookupAfterLoads(registry, () => registry.findResource(uri));
  if (match === undefined) throw notFoundError('resource', uri, ctx.era);
  const result = { ...(await match.resource.run(uri, match.variables, ctx)) };
  // MCP 2026-07-28 caching: the resource's own hint; the router's default fills what it leaves out.
  return eraPolicy(ctx.era).resultEnvelope && match.resource.cache !== undefined
    ? { ...cacheFields(match.resource.cache), ...result }
    : result;
}
