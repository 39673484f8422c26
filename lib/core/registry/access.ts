// Access rules of tools, resources and prompts: required scopes and a canAccess check, written once for calls, lists and completion.

import { McpConfigError } from '../../options/config-error';
import { checkFunction } from './definition';
import type { RequestContext } from './request-context';

/** Who may see and use an item. Denied looks exactly like not found, so callers cannot probe. */
export interface AccessRule {
  /** Scopes the caller's token must all have (`ctx.auth.scopes`); without auth, nobody has them. */
  scopes?: readonly string[];
  /** Any other check: the principal, the session, the time of day. */
  canAccess?: (ctx: RequestContext) => boolean | Promise<boolean>;
}

/**
 * The rule of a definition, or undefined when it sets none (everyone may use the item).
 *
 * @throws {McpConfigError} for scopes that are not strings or a canAccess that is not a function
 */
export function accessRuleOf(definition: AccessRule, label: string): AccessRule | undefined {
  const { scopes, canAccess } = definition;
  if (scopes === undefined && canAccess === undefined) return undefined;
  if (
    scopes !== undefined &&
    (!Array.isArray(scopes) || !scopes.every((scope) => typeof scope === 'string' && scope !== ''))
  ) {
    throw new McpConfigError('ERR_MCP_INVALID_DEFINITION', `${label} scopes must be an array of non-empty strings`);
  }
  checkFunction(canAccess, label, 'canAccess', true);
  return Object.freeze({ scopes: scopes && Object.freeze([...scopes]), canAccess });
}

/** Whether the caller of `ctx` may see and use an item with this rule. */
export async function mayUse(rule: AccessRule | undefined, ctx: RequestContext): Promise<boolean> {
  if (rule === undefined) return true;
  const granted = ctx.auth?.scopes ?? [];
  if (rule.scopes !== undefined && !rule.scopes.every((scope) => granted.includes(scope))) return false;
  return rule.canAccess === undefined || (await rule.canAccess(ctx)) === true;
}

/** The item if it exists and the caller may use it, else undefined (denied is indistinguishable from unknown). */
export async function usable<T extends { readonly access: AccessRule | undefined }>(
  item: T | undefined,
  ctx: RequestContext,
): Promise<T | undefined> {
  return item !== undefined && (await mayUse(item.access, ctx)) ? item : undefined;
}
