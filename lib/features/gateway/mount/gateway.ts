// The router's upstreams: each mounted once under a unique name and prefix, all closed with the router.

import { McpConfigError } from '../../../options/config-error';
import type { McpLogger } from '../../../core/logger';
import type { NamespaceHold } from '../../../core/registry/namespaces';
import type { Registry } from '../../../core/registry/registry';
import type { McpObserver } from '../../../core/observe/observer';
import { namespaceOf } from './prefixed-names';
import { mountUpstream, type UpstreamHandle } from './upstream';
import { resolveUpstream, type UpstreamOptions } from './upstream-options';
import { bindExchange, type ExchangeHost } from '../exchange/token-exchange';

/** What `mcp.upstream()` and `mcp.close()` use. */
export interface Gateway {
  /** Checks the options, mounts the upstream and starts fetching its lists. */
  mount(options: UpstreamOptions): UpstreamHandle;
  /** Removes every upstream (their sessions are deleted). */
  close(): Promise<void>;
}

export function createGateway(
  registry: Registry,
  logger: McpLogger,
  clientInfo: { readonly name: string; readonly version: string },
  notifyResourceUpdated: (uri: string) => void,
  telemetry?: McpObserver,
  /** What an upstream's `auth` (a token exchange) needs of the router, made when the first one is mounted. */
  exchangeHost?: () => ExchangeHost,
): Gateway {
  const mounted = new Map<
    string,
    {
      readonly prefix: string | undefined;
      readonly group: number;
      readonly handle: UpstreamHandle;
      /** Settles once its first list attempt is over (or it is removed). */
      readonly firstAttempt: Promise<void>;
    }
  >();
  /** Mounts so far: each upstream's items are listed after those mounted before it. */
  let mounts = 0;
  const entryOf = (group: number) => [...mounted].find(([, other]) => other.group === group);
  const nameOf = (group: number): string | undefined => entryOf(group)?.[0];
  // An upstream whose item lost its name to one mounted before it (or to a local one) syncs again and reports it.
  registry.onDisplaced((group) => void entryOf(group)?.[1].handle.refresh());
  return {
    mount(options) {
      const resolved = resolveUpstream(options);
      if (mounted.has(resolved.name))
        throw new McpConfigError(
          'ERR_MCP_DUPLICATE',
          `an upstream named '${resolved.name}' is already mounted; remove it first or pick another name`,
        );
      const samePrefix =
        resolved.prefix !== undefined &&
        [...mounted.values()].some((other) => other.prefix?.toLowerCase() === resolved.prefix!.toLowerCase());
      // Prefixes route by exact match: two upstreams under one prefix (or one differing only by case, as URI schemes do) would clash.
      if (samePrefix)
        throw new McpConfigError(
          'ERR_MCP_DUPLICATE',
          `upstream prefix '${resolved.prefix}' is already used by another upstream`,
        );
      if (resolved.auth !== undefined && exchangeHost !== undefined)
        bindExchange(resolved.auth, exchangeHost(), resolved.name);
      const group = mounts + 1;
      // Its names are its own before any list arrives: which item a name means never depends on who listed first.
      let hold: NamespaceHold | undefined;
      const { prefix } = resolved;
      if (prefix !== undefined) {
        const owner = `upstream '${resolved.name}' (prefix '${prefix}')`;
        registry.batch(() => (hold = registry.namespaces.claim({ owner, group, ...namespaceOf(prefix) }, registry)));
      }
      mounts = group;
      // Unprefixed, its names may be those an unprefixed upstream mounted before it lists (a prefixed one owns its
      // namespace, which no other may enter): its items wait for their first list attempts, so which item a name
      // means never depends on which listed first, even for a while. A prefixed one never waits.
      const earlier =
        prefix === undefined
          ? [...mounted.values()].filter((other) => other.prefix === undefined).map((other) => other.firstAttempt)
          : [];
      let firstAttemptOver = (): void => undefined;
      const firstAttempt = new Promise<void>((resolve) => (firstAttemptOver = resolve));
      const handle = mountUpstream(resolved, {
        registry,
        logger,
        clientInfo,
        notifyResourceUpdated,
        onRemoved: () => {
          hold?.release();
          mounted.delete(resolved.name);
        },
        group,
        nameOf: (other) => `upstream '${nameOf(other)}'`,
        telemetry,
        publishAfter: earlier.length === 0 ? undefined : Promise.all(earlier),
        onFirstAttempt: firstAttemptOver,
      });
      mounted.set(resolved.name, { prefix: resolved.prefix, group, handle, firstAttempt });
      // Upstreams that had listed items in its namespace (mounted after their lists came) sync again, reporting them.
      for (const other of mounted.values()) if (hold?.evicted.has(other.group)) void other.handle.refresh();
      return handle;
    },
    async close() {
      await Promise.all([...mounted.values()].map(({ handle }) => handle.remove()));
    },
  };
}
