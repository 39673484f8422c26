// prompts/list and prompts/get.

import type { Registry } from '../../registry/registry';
import { ALL_ERAS } from '../../era-policy';
import { servePromptGet } from '../call-pipeline';
import { listPage, type MethodTable } from './method-spec';
import { PROMPT_FIELDS, type createEntryShaper } from '../shaping';

/** The prompts methods of one router. */
export function promptMethods(
  registry: Registry,
  pageSize: number,
  shape: ReturnType<typeof createEntryShaper>,
): MethodTable {
  return {
    'prompts/list': {
      eras: ALL_ERAS,
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
      eras: ALL_ERAS,
      capability: 'prompts',
      // The call pipeline: admission (access, argument checks, guards), then run (get, content shaped).
      run: (params, ctx) => servePromptGet(registry, params, ctx),
    },
  };
}
