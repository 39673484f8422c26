// resources/list, resources/templates/list, resources/read, resources/subscribe and resources/unsubscribe.

import { ErrorCode, JsonRpcError } from '../jsonrpc/errors';
import type { Registry } from '../registry/registry';
import { readResource } from '../registry/resources';
import { withSubscription } from './client-data';
import { listPage, requireString, usable, type MethodTable } from './methods';
import { RESOURCE_FIELDS_SINCE, type createEntryShaper } from './shaping';

/**
 * The resources methods of one router.
 *
 * @param maxSubscriptions - most URIs one session may subscribe to (`sessions.maxSubscriptions`)
 */
export function resourceMethods(registry: Registry, pageSize: number, shape: ReturnType<typeof createEntryShaper>, maxSubscriptions: number): MethodTable {
  return {
    'resources/list': {
      feature: 'resources',
      run: (params, ctx) =>
        listPage(registry.resources, params, pageSize, 'resources', (item) => shape(item.descriptor, RESOURCE_FIELDS_SINCE, ctx.protocolVersion), ctx),
    },
    'resources/templates/list': {
      feature: 'resources',
      run: (params, ctx) =>
        listPage(registry.templates, params, pageSize, 'resourceTemplates', (item) => shape(item.descriptor, RESOURCE_FIELDS_SINCE, ctx.protocolVersion), ctx),
    },
    'resources/read': {
      feature: 'resources',
      run: async (params, ctx) => {
        const uri = requireString(params, 'uri');
        const match = registry.findResource(uri);
        // MCP resources › Error Handling: unknown resource → -32002 with the URI in data (so is a denied one).
        if (match === undefined || (await usable(match.resource, ctx)) === undefined) throw new JsonRpcError(ErrorCode.ResourceNotFound, 'Resource not found', { uri });
        return { ...(await readResource(match.resource, uri, match.variables, ctx)) };
      },
    },
    // Updates (notifications/resources/updated) travel on the session's GET stream; see mcp.notifyResourceUpdated().
    'resources/subscribe': {
      feature: 'resources',
      run: (params, _ctx, env) => {
        // What a session keeps is bounded: a URI length and a count (MCP security: bound per-session state).
        env.peer.subscriptions = withSubscription(env.peer.subscriptions, requireString(params, 'uri'), maxSubscriptions);
        return {};
      },
    },
    'resources/unsubscribe': {
      feature: 'resources',
      run: (params, _ctx, env) => {
        const uri = requireString(params, 'uri');
        // Unchanged when not subscribed: a new array would make the session be saved for nothing.
        if (env.peer.subscriptions.includes(uri)) env.peer.subscriptions = env.peer.subscriptions.filter((subscribed) => subscribed !== uri);
        return {};
      },
    },
  };
}
