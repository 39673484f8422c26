// resources/list, resources/templates/list, resources/read, resources/subscribe and resources/unsubscribe.

import { notFoundError } from '../registry/guards';
import type { Registry } from '../registry/registry';
import { withSubscription } from './client-data';
import { listPage, requireString, type MethodTable } from './methods';
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
        if (match === undefined) throw notFoundError('resource', uri);
        // The item's chain: access (denied looks unknown), guards, read (registry/guards.ts).
        return { ...(await match.resource.run(uri, match.variables, ctx)) };
      },
    },
    // Updates (notifications/resources/updated) travel on the session's GET stream; see mcp.resourceUpdated().
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
