// mcp.register(controller): each decorated method to the registration its decorator asks for.

import type { RequestHandler } from 'express';
import { appOfHandlers } from '../../edge/express-host';
import { asDispatcher, type RouteTarget } from '../../edge/host-routes/host-dispatch';
import type { AddRouteTool, BridgedRouteMeta } from '../../edge/host-routes/route-tool-meta';
import type { McpLogger } from '../../core/logger';
import type { McpRegistration } from '../../core/registry/definition';
import type { PromptDefinition } from '../../core/registry/prompts';
import type { Registry } from '../../core/registry/registry';
import type { ResourceDefinition, ResourceTemplateDefinition } from '../../core/registry/resources';
import type { ToolDefinition } from '../../core/registry/tools';
import { decoratedMembers } from './decorators';

/**
 * Registers the `@tool`, `@resource` and `@prompt` methods of `controller`, in declaration order. A `@tool` on an
 * Express handler (its meta has `method` and `path`) becomes a route tool, served by an app of its own.
 *
 * @returns one registration per decorated method
 * @throws {McpConfigError} as the registry does, for a bad or duplicate definition
 * @example
 * ```ts
 * registerController(new UsersController(), registry, bridge.addRouteTool, logger);
 * ```
 */
export function registerController(
  controller: object,
  registry: Registry,
  addRouteTool: AddRouteTool,
  logger: McpLogger,
): McpRegistration[] {
  return decoratedMembers(controller).map((member): McpRegistration => {
    const { meta, fn } = member;
    if (member.kind === 'prompt')
      return registry.addPrompt({ ...member.meta, get: fn as PromptDefinition<never>['get'] });
    if (member.kind === 'resource') {
      return 'uriTemplate' in member.meta
        ? registry.addTemplate({ ...member.meta, read: fn as ResourceTemplateDefinition<never>['read'] })
        : registry.addResource({ ...member.meta, read: fn as ResourceDefinition['read'] });
    }
    // An Express handler (a route to bridge) says where it lives; a plain method is the tool's handler.
    if ('method' in meta && 'path' in meta && typeof meta.path === 'string') {
      const { method, path, ...toolMeta } = meta as BridgedRouteMeta & { method: string; path: string };
      return addRouteTool(
        toolMeta,
        method,
        path,
        asDispatcher(appOfHandlers(method, path, [fn as RequestHandler]) as RouteTarget, logger),
      );
    }
    return registry.addTool({
      ...(meta as Omit<ToolDefinition, 'handler'>),
      handler: fn as ToolDefinition<never>['handler'],
    });
  });
}
