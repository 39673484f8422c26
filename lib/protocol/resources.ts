// resources/list, resources/templates/list, resources/read, resources/subscribe and resources/unsubscribe.

import { cacheFields } from '../registry/cache-hint';
import { notFoundError } from '../registry/guards';
import type { Registry } from '../registry/registry';
import { withSubscription } from './client-data';
import { ClientUpdate } from './handler-context';
import { BOTH_ERAS, ERA_2025_ONLY, listPage, requireString, type MethodTable } from './methods';
import { RESOURCE_FIELDS, type createEntryShaper } from './shaping';

/**
 * The resources methods of one router.
 *
 * @param maxSubscriptions - most URIs one session may subscribe to (`sessions.maxSubscriptions`)
 */
export function resourceMethods(
  registry: Registry,
  pageSize: number,
  shape: ReturnType<typeof createEntryShaper>,
  maxSubscriptions: number,
): MethodTable {
  return {
    'resources/list': {
      eras: BOTH_ERAS,
      capability: 'resources',
      cacheable: true,
      run: (params, ctx) =>
        listPage(
          registry.resources,
          params,
          pageSize,
          'resources',
          (item) => shape(item.descriptor, RESOURCE_FIELDS, ctx.protocolVersion),
          ctx,
          registry.loaded(),
        ),
    },
    'resources/templates/list': {
      eras: BOTH_ERAS,
      capability: 'resources',
      cacheable: true,
      run: (params, ctx) =>
        listPage(
          registry.templates,
          params,
          pageSize,
          'resourceTemplates',
          (item) => shape(item.descriptor, RESOURCE_FIELDS, ctx.protocolVersion),
          ctx,
          registry.loaded(),
        ),
    },
    'resources/read': {
      eras: BOTH_ERAS,
      capability: 'resources',
      cacheable: true,
      run: async (params, ctx) => {
        const uri = requireString(params, 'uri');
        const match = registry.findResource(uri) ?? (await registry.afterLoads(() => registry.findResource(uri)));
        if (match === undefined) throw notFoundError('resource', uri, ctx.era);
        // The item's chain: access (denied looks unknown), guards, read (registry/guards.ts).
        const result = { ...(await match.resource.run(uri, match.variables, ctx)) };
        // MCP 2026-07-28 caching: the resource's own hint; the router's default fills what it leaves out.
        return ctx.era === '2026' && match.resource.cache !== undefined
          ? { ...cacheFields(match.resource.cache), ...result }
          : result;
      },
    },
    // Updates (notifications/resources/updated) travel on the session's GET stream; see mcp.notifyResourceUpdated().
    'resources/subscribe': {
      eras: ERA_2025_ONLY,
      capability: 'resources',
      run: (params, _ctx, client) => {
        // What a session keeps is bounded: a URI length and a count (MCP security: bound per-session state).
        const subscriptions = withSubscription(client.subscriptions, requireString(params, 'uri'), maxSubscriptions);
        // Unchanged when already subscribed: a change would make the session be saved for nothing.
        return subscriptions === client.subscriptions ? {} : new ClientUpdate({}, { subscriptions });
      },
    },
    'resources/unsubscribe': {
      eras: ERA_2025_ONLY,
      capability: 'resources',
      run: (params, _ctx, client) => {
        const uri = requireString(params, 'uri');
        if (!client.subscriptions.includes(uri)) return {};
        return new ClientUpdate({}, { subscriptions: client.subscriptions.filter((subscribed) => subscribed !== uri) });
      },
    },
  };
}
