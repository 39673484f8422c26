// The server-card feature: `serverCard` serves the draft MCP Server Card (SEP-2127) at `<mount path>/server-card`.

import type { RouterFeature } from '../../edge/feature';
import { resolveServerCard, type CardIdentity, type ServerCardRouterOptions } from './card-options';
import { createServerCardHandler, SERVER_CARD_PATH } from './serve-card';

/** Serves the card as a public document of the router when `serverCard` is set; it adds nothing to `mcp`. */
export const serverCardFeature: RouterFeature<ServerCardRouterOptions, CardIdentity | undefined, object> = {
  key: 'server-card',
  resolve: (options) => resolveServerCard(options),
  install: (host, identity) => {
    if (identity !== undefined) host.publicDocument(SERVER_CARD_PATH, createServerCardHandler(identity, host));
    return { api: {} };
  },
};
