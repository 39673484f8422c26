// prompts/list and prompts/get.

import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import { getPrompt } from '../registry/prompts';
import type { Registry } from '../registry/registry';
import { BOTH_ERAS, listPage, requireString, usable, type MethodTable } from './methods';
import { PROMPT_FIELDS, shapeContent, type createEntryShaper } from './shaping';

/** The prompts methods of one router. */
export function promptMethods(registry: Registry, pageSize: number, shape: ReturnType<typeof createEntryShaper>): MethodTable {
  return {
    'prompts/list': {
      eras: BOTH_ERAS,
      capability: 'prompts',
      run: (params, ctx) => listPage(registry.prompts, params, pageSize, 'prompts', (item) => shape(item.descriptor, PROMPT_FIELDS, ctx.protocolVersion), ctx),
    },
    'prompts/get': {
      eras: BOTH_ERAS,
      capability: 'prompts',
      run: async (params, ctx) => {
        const name = requireString(params, 'name');
        const prompt = await usable(registry.prompts.get(name), ctx);
        // MCP prompts › Error Handling: an unknown prompt is -32602.
        if (prompt === undefined) throw new JsonRpcError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
        const result = await getPrompt(prompt, params.arguments, ctx);
        const messages = result.messages.map((message) => ({ role: message.role, content: shapeContent(message.content, ctx.protocolVersion) }));
        return { ...result, messages };
      },
    },
  };
}
