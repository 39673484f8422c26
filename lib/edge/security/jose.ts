// jose (JWTs, JWKs), loaded at first use: it is ESM only, which Node's require() loads from 20.19 and 22.12 on.

import type * as Jose from 'jose';
import { McpConfigError } from '../../options/config-error';

let loaded: typeof Jose | undefined;

/**
 * The jose module. Loaded lazily so that a router without sign-in or JWT verification still runs on the Node
 * versions that cannot require an ES module.
 *
 * @throws {McpConfigError} `ERR_MCP_INVALID_OPTION` when this Node cannot load it
 */
export function jose(): typeof Jose {
  if (loaded === undefined) {
    try {
      loaded = require('jose') as typeof Jose;
    } catch (err) {
      throw new McpConfigError(
        'ERR_MCP_INVALID_OPTION',
        `sign-in and JWT verification need jose, which needs Node 20.19+ or 22.12+ (this is ${process.version}): ${(err as Error).message}`,
      );
    }
  }
  return loaded;
}
