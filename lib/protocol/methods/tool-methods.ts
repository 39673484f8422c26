// tools/list and tools/call, with MCP Apps' app-only tools kept from clients that do not render apps.

import type { Registry } from '../../registry/registry';
import type { RegisteredTool } from '../../registry/tools';
import { notFoundError } from '../../registry/guards';
import { declaresUiExtension } from '../../registry/ui-link';
import { ALL_ERAS } from '../../era-policy';
import { serveToolCall } from '../call-pipeline';
import type { ClientState } from '../handler-context';
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
  // SEP-1865 Visibility: a host that declared the extension enforces `visibility` itself and its apps call app-only
  // tools through it; to any other client an app-only tool does not exist. With none registered, nothing is checked.
  const hidesAppOnly = (client: ClientState): boolean =>
    registry.apps.appOnlyTools > 0 && !declaresUiExtension(client.clientCapabilities);
  return {
    'tools/list': {
      eras: ALL_ERAS,
      capability: 'tools',
      cacheable: true,
      run: (params, ctx, client) => {
        const hides = hidesAppOnly(client);
        return listPage(
          registry.tools,
          params,
          pageSize,
          'tools',
          (tool: RegisteredTool) =>
            hides && tool.ui?.appOnly === true ? undefined : shape(tool.descriptor, TOOL_FIELDS, ctx.protocolVersion),
          ctx,
          registry.loaded(),
        );
      },
    },
    'tools/call': {
      eras: ALL_ERAS,
      capability: 'tools',
      // The call pipeline: admission (access, headers, task negotiation, arguments, limits, guards), then run.
      run: (params, ctx, client) => {
        if (hidesAppOnly(client) && typeof params.name === 'string' && registry.tools.get(params.name)?.ui?.appOnly)
          throw notFoundError('tool', params.name, ctx.era);
        return serveToolCall(registry, tasks, params, ctx, client);
      },
    },
  };
}
