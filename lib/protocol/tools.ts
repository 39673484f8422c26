// tools/list and tools/call.

import { mayUse } from '../registry/access';
import { notFoundError } from '../registry/guards';
import type { Registry } from '../registry/registry';
import { BOTH_ERAS, listPage, optionalObject, requireString, type MethodTable } from './methods';
import { paramHeaderFault } from './request-headers';
import type { TaskRunner } from './task-runner';
import { callAsTask } from './tasks';
import { shapeToolResult, TOOL_FIELDS, type createEntryShaper } from './shaping';

/** The tools methods of one router. */
export function toolMethods(
  registry: Registry,
  pageSize: number,
  shape: ReturnType<typeof createEntryShaper>,
  tasks?: TaskRunner,
): MethodTable {
  return {
    'tools/list': {
      eras: BOTH_ERAS,
      capability: 'tools',
      cacheable: true,
      run: (params, ctx) =>
        listPage(
          registry.tools,
          params,
          pageSize,
          'tools',
          (tool) => shape(tool.descriptor, TOOL_FIELDS, ctx.protocolVersion),
          ctx,
          registry.loaded(),
        ),
    },
    'tools/call': {
      eras: BOTH_ERAS,
      capability: 'tools',
      run: async (params, ctx, client) => {
        const name = requireString(params, 'name');
        const args = optionalObject(params, 'arguments') ?? {};
        const tool = registry.tools.get(name) ?? (await registry.afterLoads(() => registry.tools.get(name)));
        if (tool === undefined) throw notFoundError('tool', name, ctx.era);
        const checksHeaders = ctx.era === '2026' && tool.headerParams.length > 0;
        const mayRunAsTask = tool.task !== undefined || params.task !== undefined;
        // What runs before the chain sees the access rule first, once: a tool the caller may not use looks unknown,
        // whatever its headers say, and no task is made for it.
        if ((checksHeaders || mayRunAsTask) && !(await mayUse(tool.access, ctx)))
          throw notFoundError('tool', name, ctx.era);
        // SEP-2243: a 2026 call mirrors its "x-mcp-header" arguments in Mcp-Param-* headers.
        if (checksHeaders) {
          const fault = paramHeaderFault(tool.headerParams, args, ctx.headers);
          if (fault !== undefined) throw fault;
        }
        // MCP tasks: a call that runs as a task answers at once with its handle.
        if (mayRunAsTask) {
          const handle = await callAsTask(tasks, tool, params, args, ctx, client);
          if (handle !== undefined) return handle;
        }
        // The tool's chain: access (denied looks unknown), validation, limits, guards, handler (registry/guards.ts).
        const result = await tool.run(args, ctx);
        return shapeToolResult(result, ctx.protocolVersion) as unknown as Record<string, unknown>;
      },
    },
  };
}
