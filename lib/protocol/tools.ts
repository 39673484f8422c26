// tools/list and tools/call.

import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import type { Registry } from '../registry/registry';
import { callTool } from '../registry/tools';
import { listPage, optionalObject, requireString, usable, type MethodTable } from './methods';
import { shapeToolResult, TOOL_FIELDS_SINCE, type createEntryShaper } from './shaping';

/** The tools methods of one router. */
export function toolMethods(registry: Registry, pageSize: number, shape: ReturnType<typeof createEntryShaper>): MethodTable {
  return {
    'tools/list': {
      feature: 'tools',
      run: (params, ctx) => listPage(registry.tools, params, pageSize, 'tools', (tool) => shape(tool.descriptor, TOOL_FIELDS_SINCE, ctx.protocolVersion), ctx),
    },
    'tools/call': {
      feature: 'tools',
      run: async (params, ctx) => {
        const name = requireString(params, 'name');
        const args = optionalObject(params, 'arguments') ?? {};
        const tool = await usable(registry.tools.get(name), ctx);
        // MCP tools › Error Handling: an unknown tool is a protocol error, not an isError result.
        if (tool === undefined) throw new JsonRpcError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
        const result = await callTool(tool, args, ctx);
        return shapeToolResult(result, ctx.protocolVersion) as unknown as Record<string, unknown>;
      },
    },
  };
}
