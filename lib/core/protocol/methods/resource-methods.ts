// resources/list, resources/templates/list, resources/read, resources/subscribe and resources/unsubscribe.

import type { Registry } from '../../registry/registry';
import { ALL_ERAS, SESSION_ERAS } from '../../era-policy';
import { serveResourceRead } from '../call-pipeline';
import { withSubscription } from '../client-data';
import { ClientUpdate } from '../handler-context';
import { listPage, requireString, type MethodTable } from './method-spec';
import { RESOURCE_FIELDS, type createEntryShaper } from '../shaping';

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
      eras: ALL_ERAS,
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
      eras: ALL_ERAS,
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
      eras: ALL_ERAS,
      capability: 'resources',
      cacheable: true,
      // The call pipeline: admission (access, guards), then run (read, the 2026 cache hint).
      run: (params, ctx) => serveResourceRead(registry, params, ctx),
    },
    // Updates (notifications/resources/updated) travel on the session's GET stream; see mcp.notifyResourceUpdated().
    'resources/subscribe': {
      eras: SESSION_ERAS,
      capability: 'resources',
      run: (params, _ctx, client) => {
        // What a session keeps is bounded: a URI length and a count (MCP security: bound per-session state).
        const subscriptions = withSubscription(client.subscriptions, requireString(params, 'uri'), maxSubscriptions);
        // Unchanged when already subscribed: a change would make the session be saved for nothing.
        return subscriptions === client.subscriptions ? {} : new ClientUpdate({}, { subscriptions });
      },
    },
    'resources/unsubscribe': {
      eras: SESSION_ERAS,
      capability: 'resources',
      run: (params, _ctx, client) => {
        const uri = requireString(params, 'uri');
        if (!client.subscriptions.includes(uri)) return {};
        return new ClientUpdate({}, { subscriptions: client.subscriptions.filter((subscribed) => subscribed !== uri) });
      },
    },
  };
}
