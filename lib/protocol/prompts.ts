// prompts/list and prompts/get.

import { notFoundError } from '../registry/guards';
import type { Registry } from '../registry/registry';
import { BOTH_ERAS, listPage, requireString, type MethodTable } from './methods';
import { PROMPT_FIELDS, shapeContent, type createEntryShaper } from './shaping';

/** The prompts methods of one router. */
export function promptMethods(
  registry: Registry,
  pageSize: number,
  shape: ReturnType<typeof createEntryShaper>,
): MethodTable {
  return {
    'prompts/list': {
      eras: BOTH_ERAS,
      capability: 'prompts',
      cacheable: true,
      run: (params, ctx) =>
        listPage(
          registry.prompts,
          params,
          pageSize,
          'prompts',
          (item) => shape(item.descriptor, PROMPT_FIELDS, ctx.protocolVersion),
          ctx,
          registry.loaded(),
        ),
    },
    'prompts/get': {
      eras: BOTH_ERAS,
      capability: 'prompts',
      run: async (params, ctx) => {
        const name = requireString(params, 'name');
        const prompt = registry.prompts.get(name) ?? (await registry.afterLoads(() => registry.prompts.get(name)));
        if (prompt === undefined) throw notFoundError('prompt', name, ctx.era);
        // The prompt's chain: access (denied looks unknown), argument checks, guards, get (registry/guards.ts).
        const result = await prompt.run(params.arguments, ctx);
        const messages = result.messages.map((message) => ({
          role: message.role,
          content: shapeContent(message.content, ctx.protocolVersion),
        }));
        return { ...result, messages };
      },
    },
  };
}
