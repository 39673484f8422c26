// completion/complete: argument suggestions for prompts (ref/prompt) and resource templates (ref/resource).

import { ErrorCode, JsonRpcError } from '../../jsonrpc/errors';
import { isObject, type JsonRpcParams } from '../../jsonrpc/types';
import { usable } from '../../registry/access';
import { notFoundError } from '../../registry/guards';
import { toCompletionResult, type Completer } from '../../registry/completion';
import type { RequestContext } from '../../registry/request-context';
import type { Registry } from '../../registry/registry';
import { ALL_ERAS } from '../../era-policy';
import { optionalObject, requireString, type MethodTable } from './method-spec';

function invalid(message: string): JsonRpcError {
  return new JsonRpcError(ErrorCode.InvalidParams, message);
}

/**
 * Finds the completer of the referenced argument: undefined when the argument exists but has none.
 *
 * @throws {JsonRpcError} -32602 for an unknown prompt, template or argument (MCP completion › Error Handling)
 */
async function findCompleter(
  registry: Registry,
  ref: Record<string, unknown>,
  argument: string,
  ctx: RequestContext,
): Promise<Completer | undefined> {
  if (ref.type === 'ref/prompt') {
    const name = requireString(ref, 'name');
    const prompt = await usable(
      registry.prompts.get(name) ?? (await registry.afterLoads(() => registry.prompts.get(name))),
      ctx,
    );
    if (prompt === undefined) throw notFoundError('prompt', name, ctx.era);
    if (!prompt.arguments.some((arg) => arg.name === argument))
      throw invalid(`Prompt '${name}' has no argument '${argument}'`);
    return prompt.completers.get(argument);
  }
  if (ref.type === 'ref/resource') {
    const uri = requireString(ref, 'uri');
    const template = await usable(
      registry.templates.get(uri) ?? (await registry.afterLoads(() => registry.templates.get(uri))),
      ctx,
    );
    if (template === undefined) throw invalid(`Unknown resource template: ${uri}`);
    if (!template.template.variableNames.includes(argument))
      throw invalid(`Resource template '${uri}' has no variable '${argument}'`);
    return template.completers.get(argument);
  }
  throw invalid(`Invalid params: 'ref.type' must be 'ref/prompt' or 'ref/resource'`);
}

function stringValues(context: Record<string, unknown> | undefined): Record<string, string> {
  const values: Record<string, string> = {};
  const given = context?.arguments;
  if (!isObject(given)) return values;
  for (const [key, value] of Object.entries(given)) if (typeof value === 'string') values[key] = value;
  return values;
}

/** The completion method of one router (declared as the `completions` capability). */
export function completionMethods(registry: Registry): MethodTable {
  return {
    'completion/complete': {
      eras: ALL_ERAS,
      capability: 'completions',
      run: async (params: JsonRpcParams, ctx) => {
        const ref = optionalObject(params, 'ref');
        const argument = optionalObject(params, 'argument');
        if (ref === undefined || argument === undefined)
          throw invalid(`Invalid params: 'ref' and 'argument' are required`);
        const name = requireString(argument, 'name');
        const value = typeof argument.value === 'string' ? argument.value : '';
        const completer = await findCompleter(registry, ref, name, ctx);
        if (completer === undefined) return { completion: { values: [] } };
        const output = await completer(value, { arguments: stringValues(optionalObject(params, 'context')) }, ctx);
        return { completion: toCompletionResult(output) };
      },
    },
  };
}
