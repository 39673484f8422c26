// tools/list and tools/call.

import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import type { Registry } from '../registry/registry';
import { callTool } from '../registry/tools';
import { BOTH_ERAS, listPage, optionalObject, requireString, usable, type MethodTable } from './methods';
import { shapeToolResult, TOOL_FIELDS, type createEntryShaper } from './shaping';

/** The tools methods of one router. */
export function toolMethods(registry: Registry, pageSize: number, shape: ReturnType<typeof createEntryShaper>): MethodTable {
  return {
    'tools/list': {
      eras: BOTH_ERAS,
      capability: 'tools',
      run: (params, ctx) => listPage(registry.tools, params, pageSize, 'tools', (tool) => shape(tool.descriptor, TOOL_FIELDS, ctx.protocolVersion), ctx),
    },
    'tools/call': {
      eras: BOTH_ERAS,
      capability: 'tools',
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
