// MCP tasks on the wire: tasks/get, tasks/update, tasks/cancel (2026 extension, SEP-2663) and the 2025-11-25 experimental methods.

import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors';
import { isObject, type JsonRpcParams } from '../../jsonrpc/types';
import type { RegisteredTool } from '../../registry/tools';
import type { RequestContext } from '../../registry/request-context';
import { isTerminal, type TaskRecord } from './task-store';
import { isAtLeast } from '../../versions';
import type { ClientState } from '../handler-context';
import { ALL_ERAS, eraPolicy, SESSION_ERAS, STATELESS_ERAS } from '../../era-policy';
import { requireString, type MethodTable } from '../methods/method-spec';
import type { TaskRunner, TaskStart } from './task-runner';

/** The extension's identifier, in capabilities on both sides (SEP-2663 Extension Identifier). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** The 2025-11-25 `_meta` key tying a message to its task. */
const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/** SEP-2663 Capability Negotiation: the client declared the extension in this request's capabilities. */
export function declaresTasksExtension(client: ClientState): boolean {
  const extensions = client.clientCapabilities.extensions;
  return isObject(extensions) && isObject(extensions[TASKS_EXTENSION]);
}

/** -32021 naming the extension (SEP-2663: a task-only tool, or tasks/* from a client that did not declare it). */
function missingExtension(why: string): JsonRpcError {
  return new JsonRpcError(ErrorCode.MissingRequiredClientCapability, `Missing required client capability: ${why}`, {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
  });
}

/** Who owns the tasks a request creates and sees: the principal, else the 2025 session, else no one in particular. */
export function taskOwner(ctx: RequestContext): string {
  if (ctx.auth !== undefined) return `principal:${ctx.auth.subject}`;
  return ctx.sessionId !== undefined ? `session:${ctx.sessionId}` : '';
}

/** The Task object, with the field names of the task's era (2025-11-25: `ttl`, `pollInterval`; SEP-2663: `ttlMs`, `pollIntervalMs`). */
function wireTask(record: TaskRecord): Record<string, unknown> {
  const task: Record<string, unknown> = { taskId: record.taskId, status: record.status };
  if (record.statusMessage !== undefined) task.statusMessage = record.statusMessage;
  task.createdAt = new Date(record.createdAt).toISOString();
  task.lastUpdatedAt = new Date(record.lastUpdatedAt).toISOString();
  const { ttlField, pollIntervalField } = eraPolicy(record.era).tasks;
  task[ttlField] = record.ttlMs;
  task[pollIntervalField] = record.pollIntervalMs;
  return task;
}

/** SEP-2663 DetailedTask: the task with what its status carries (the result, the error, or the outstanding asks). */
function detailedTask(record: TaskRecord): Record<string, unknown> {
  const task = wireTask(record);
  if (record.status === 'completed' && record.result !== undefined) task.result = record.result;
  if (record.status === 'failed' && record.error !== undefined) task.error = record.error;
  if (record.status === 'input_required' && record.inputRequests !== undefined)
    task.inputRequests = record.inputRequests;
  return task;
}

/** A tools/call that runs as a task: what starts it, and the form of its handle (SEP-2663's, else 2025-11-25's). */
export interface TaskCall {
  readonly start: TaskStart;
  readonly viaExtension: boolean;
}

/**
 * The task negotiation of a tools/call of a tool that may run as a task, part of the call's admission (after access
 * and the 2026 headers, before the arguments): the task to make when the call runs as one, undefined when it runs
 * as a plain call.
 *
 * - 2026 (SEP-2663 Capability Negotiation): a task whenever the client declared the extension on this request
 *   (the server decides; a legacy `task` param is ignored). A `'required'` tool without it → -32021.
 * - 2025-11-25 (tasks › Tool-Level Negotiation): a task when the call carries a `task` object. A `'required'` tool
 *   without it → -32601; `task` on a tool without task support → -32601 (SHOULD).
 */
export function negotiateTask(
  runner: TaskRunner | undefined,
  tool: RegisteredTool,
  params: JsonRpcParams,
  ctx: RequestContext,
  client: ClientState,
): TaskCall | undefined {
  const viaExtension = eraPolicy(ctx.era).tasks.viaExtension;
  const asked = viaExtension
    ? declaresTasksExtension(client)
    : isObject(params.task) && isAtLeast(ctx.protocolVersion, '2025-11-25');
  if (tool.task === undefined || runner === undefined) {
    if (!viaExtension && asked)
      throw new JsonRpcError(
        ErrorCode.MethodNotFound,
        `Method not found: tool '${tool.name}' does not run as a task (its execution.taskSupport is forbidden)`,
      );
    return undefined;
  }
  if (!asked) {
    if (tool.task === 'optional') return undefined;
    if (viaExtension)
      throw missingExtension(`tool '${tool.name}' runs only as a task: declare the ${TASKS_EXTENSION} extension`);
    throw new JsonRpcError(
      ErrorCode.MethodNotFound,
      `Method not found: tool '${tool.name}' must be called as a task (execution.taskSupport is required): add a 'task' param`,
    );
  }
  const requested =
    !viaExtension && isObject(params.task) && typeof params.task.ttl === 'number' ? params.task.ttl : undefined;
  const start = { owner: taskOwner(ctx), era: ctx.era, name: tool.name, requestedTtlMs: requested };
  return { start, viaExtension };
}

/** SEP-2663 Task Creation: a flat `Result & Task` with resultType "task"; 2025-11-25: `{ task }`. */
export function taskHandle(record: TaskRecord, viaExtension: boolean): Record<string, unknown> {
  return viaExtension ? { ...wireTask(record), resultType: 'task' } : { task: wireTask(record) };
}

/** -32602 for an unknown, expired or foreign id alike (SEP-2663 Protocol Errors; 2025-11-25 the same). */
function notFound(taskId: string): JsonRpcError {
  return new JsonRpcError(ErrorCode.InvalidParams, `Failed to retrieve task: Task not found (${taskId})`);
}

/** The owner's task named by `params.taskId`, in the era of the request. */
async function findTask(runner: TaskRunner, params: JsonRpcParams, ctx: RequestContext): Promise<TaskRecord> {
  const taskId = requireString(params, 'taskId');
  const record = await runner.get(taskId, taskOwner(ctx));
  // A task speaks the era that made it: the other era's methods do not see it.
  if (record === undefined || record.era !== ctx.era) throw notFound(taskId);
  return record;
}

/** 2026 requests must declare the extension to use tasks/* (SEP-2663 Protocol Errors: -32021, MUST). */
function requireTasksExtension(ctx: RequestContext, client: ClientState, method: string): void {
  if (eraPolicy(ctx.era).tasks.viaExtension && !declaresTasksExtension(client))
    throw missingExtension(`${method} needs the ${TASKS_EXTENSION} extension in the request's capabilities`);
}

/** The tasks methods of one router: present only once a tool that may run as a task was registered. */
export function taskMethods(runner: TaskRunner): MethodTable {
  return {
    'tasks/get': {
      eras: ALL_ERAS,
      capability: 'tasks',
      run: async (params, ctx, client) => {
        requireTasksExtension(ctx, client, 'tasks/get');
        const record = await findTask(runner, params, ctx);
        return eraPolicy(ctx.era).tasks.detailedGet ? detailedTask(record) : wireTask(record);
      },
    },
    'tasks/update': {
      eras: STATELESS_ERAS,
      capability: 'tasks',
      run: async (params, ctx, client) => {
        requireTasksExtension(ctx, client, 'tasks/update');
        const taskId = requireString(params, 'taskId');
        const responses = params.inputResponses;
        if (!isObject(responses))
          throw new JsonRpcError(ErrorCode.InvalidParams, "Invalid params: 'inputResponses' must be an object");
        await findTask(runner, params, ctx);
        if (!(await runner.answer(taskId, taskOwner(ctx), responses))) throw notFound(taskId);
        // SEP-2663: an empty acknowledgement.
        return {};
      },
    },
    'tasks/cancel': {
      eras: ALL_ERAS,
      capability: 'tasks',
      run: async (params, ctx, client) => {
        requireTasksExtension(ctx, client, 'tasks/cancel');
        const record = await findTask(runner, params, ctx);
        const after = (await runner.cancel(record.taskId, taskOwner(ctx))) ?? record;
        // SEP-2663: an empty ack, also for a finished task (cancellation is cooperative).
        if (eraPolicy(ctx.era).tasks.emptyCancelAck) return {};
        // MCP 2025-11-25 tasks › Task Cancellation: a terminal task → -32602; else the cancelled task.
        if (isTerminal(record.status))
          throw new JsonRpcError(
            ErrorCode.InvalidParams,
            `Cannot cancel task ${record.taskId}: it is already ${record.status}`,
          );
        return wireTask(after);
      },
    },
    'tasks/result': {
      eras: SESSION_ERAS,
      capability: 'tasks',
      run: async (params, ctx) => {
        const first = await findTask(runner, params, ctx);
        // MCP 2025-11-25 tasks › Result Retrieval: blocks until the task is terminal.
        await runner.whenDone(first.taskId, ctx.signal);
        const record = await findTask(runner, params, ctx);
        const related = { [RELATED_TASK]: { taskId: record.taskId } };
        if (record.status === 'completed' && record.result !== undefined)
          return {
            ...record.result,
            _meta: { ...(isObject(record.result._meta) ? record.result._meta : {}), ...related },
          };
        if (record.status === 'failed' && record.error !== undefined) {
          const { code, message, data } = record.error;
          throw new JsonRpcError(
            typeof code === 'number' ? code : ErrorCode.InternalError,
            typeof message === 'string' ? message : 'Internal error',
            data,
          );
        }
        throw new JsonRpcError(ErrorCode.InvalidParams, `Task ${record.taskId} has no result: it is ${record.status}`);
      },
    },
    'tasks/list': {
      eras: SESSION_ERAS,
      capability: 'tasks',
      run: async (_params, ctx) => {
        const tasks = await runner.list(taskOwner(ctx));
        // Bounded by the store's maxPerPrincipal, so one page holds them all.
        return { tasks: tasks.filter((record) => record.era === ctx.era).map(wireTask) };
      },
    },
  };
}
