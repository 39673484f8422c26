// tools/list and tools/call, with MCP Apps' app-only tools kept from clients that do not render apps.

import type { Registry } from '../../registry/registry';
import type { RegisteredTool } from '../../registry/tools';
import { hiddenFrom } from '../../registry/ui-link';
import { ALL_ERAS } from '../../era-policy';
import { serveToolCall } from '../call-pipeline';
import { listPage, type MethodTable } from './method-spec';
import type { TaskRunner } from '../tasks/task-runner';
import { TOOL_FIELDS, type createEntryShaper } from '../shaping';

/** The tools methods of one router. */
export function toolMethods(
  registry: Registry,
  pageSize: number,
  shape: ReturnType<typeof createEntryShaper>,
  tasks?: TaskRunner,
): MethodTable {
  return {
    'tools/list': {
      eras: ALL_ERAS,
      capability: 'tools',
      cacheable: true,
      // App-only tools are left out for a client that does not render apps (SEP-1865 Visibility), judged per entry
      // once the first loads are in: an upstream's app-only tools arrive with them.
      run: (params, ctx, client) =>
        listPage(
          registry.tools,
          params,
          pageSize,
          'tools',
          (tool: RegisteredTool) =>
            hiddenFrom(tool, client.clientCapabilities)
              ? undefined
              : shape(tool.descriptor, TOOL_FIELDS, ctx.protocolVersion),
          ctx,
          registry.loaded(),
        ),
    },
    'tools/call': {
      eras: ALL_ERAS,
      capability: 'tools',
      // The call pipeline: admission (access, headers, task negotiation, arguments, limits, guards), then run.
      // An app-only tool is refused there, as unknown, to a client that does not render apps (SEP-1865 Visibility).
      run: (params, ctx, client, line) => serveToolCall(registry, tasks, params, ctx, client, line),
    },
  };
}
