// tools/list and tools/call.

import type { Registry } from '../../registry/registry';
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
      eras: ALL_ERAS,
      capability: 'tools',
      // The call pipeline: admission (access, headers, task negotiation, arguments, limits, guards), then run.
      run: (params, ctx, client) => serveToolCall(registry, tasks, params, ctx, client),
    },
  };
}
