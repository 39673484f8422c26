// The task tools of the conformance `tasks-*` scenarios (SEP-2663, io.modelcontextprotocol/tasks), for demo/everything.ts.

import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorCode, JsonRpcError, type McpRouter } from '../lib';

const CONFIRM_SCHEMA = { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] };
const NAME_SCHEMA = { type: 'object', properties: { name: { type: 'string' } } };

/**
 * Registers `greet` (plain), `slow_compute` (optional task: sleeps `seconds`, aborted by tasks/cancel),
 * `failing_job` (required task: a tool error), `protocol_error_job` (a JSON-RPC error: a failed task),
 * `confirm_delete` (one elicitation: input_required) and `multi_input` (two elicitations at once), and
 * `test_tool_with_task` (asks for a name through the call's input_required round, then continues as a task).
 */
export function addTaskTools(mcp: McpRouter): void {
  mcp.tool({
    name: 'greet',
    description: 'Greets by name (never a task)',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    handler: ({ name }: { name: string }) => `Hello, ${name}!`,
  });

  mcp.tool({
    name: 'slow_compute',
    description: 'Sleeps for `seconds`, then answers; runs as a task when the client supports tasks',
    inputSchema: { type: 'object', properties: { seconds: { type: 'number', minimum: 0 }, label: { type: 'string' } } },
    task: 'optional',
    handler: async ({ seconds = 1, label = 'job' }: { seconds?: number; label?: string }, ctx) => {
      const steps = Math.max(1, Math.ceil(seconds * 4));
      for (let step = 1; step <= steps && seconds > 0; step++) {
        await sleep((seconds * 1000) / steps, undefined, { signal: ctx.signal });
        await ctx.progress(step, steps, `computing ${label}`);
      }
      return `Computed ${label} after ${seconds} s`;
    },
  });

  mcp.tool({
    name: 'failing_job',
    description: 'Always fails with a tool error after about a second; runs only as a task',
    task: 'required',
    handler: async (_args, ctx) => {
      await sleep(1000, undefined, { signal: ctx.signal });
      throw new Error('failing_job: the job failed (a tool execution error)');
    },
  });

  mcp.tool({
    name: 'protocol_error_job',
    description: 'Fails with a JSON-RPC error (a failed task)',
    task: 'optional',
    handler: async () => {
      throw new JsonRpcError(ErrorCode.InternalError, 'protocol_error_job: an internal failure');
    },
  });

  mcp.tool({
    name: 'confirm_delete',
    description: 'Asks the user to confirm deleting `filename` (an elicitation), then answers',
    inputSchema: { type: 'object', properties: { filename: { type: 'string' } }, required: ['filename'] },
    task: 'optional',
    handler: async ({ filename }: { filename: string }, ctx) => {
      const answer = await ctx.elicit({ message: `Delete ${filename}?`, requestedSchema: CONFIRM_SCHEMA });
      const content = answer.content as { confirm?: boolean } | undefined;
      return answer.action === 'accept' && content?.confirm === true ? `Deleted ${filename}` : `Kept ${filename}`;
    },
  });

  mcp.tool({
    name: 'multi_input',
    description: 'Asks two questions at once (two elicitations), then answers with both',
    task: 'optional',
    handler: async (_args, ctx) => {
      const [first, second] = await Promise.all([
        ctx.elicit({ message: 'First name?', requestedSchema: NAME_SCHEMA }),
        ctx.elicit({ message: 'Second name?', requestedSchema: NAME_SCHEMA }),
      ]);
      return `Got ${JSON.stringify(first.content ?? null)} and ${JSON.stringify(second.content ?? null)}`;
    },
  });

  mcp.tool({
    name: 'test_tool_with_task',
    description: 'Asks for your name (key user_name), then greets you from a task (SEP-2663 MRTR → tasks composition)',
    task: 'required',
    taskStart: 'handler',
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit(
        { message: 'What is your name?', requestedSchema: NAME_SCHEMA },
        { key: 'user_name' },
      );
      const name = (answer.content as { name?: unknown } | undefined)?.name;
      await ctx.continueAsTask();
      return `Hello, ${typeof name === 'string' ? name : 'stranger'}!`;
    },
  });
}
