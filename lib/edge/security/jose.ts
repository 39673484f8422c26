// jose (JWTs, JWKs), loaded at first use: it is ESM only, which Node's require() loads from 20.19 and 22.12 on.

import type * as Jose from 'jose';
import { McpConfigError } from '../../options/config-error';

/** The Node releases whose require() loads an ES module without a flag, as messages name them. */
const REQUIRE_ESM_NODE = 'Node 20.19+ or 22.12+';

let loaded: typeof Jose | undefined;

/**
 * Whether a Node version's require() loads an ES module without a flag: unflagged in 22.12 and backported to 20.19
 * (Node 22.12.0 and 20.19.0 release notes), on by default from 23.0; never in 21.
 *
 * @param version - a Node version as `process.versions.node` gives it: `'20.18.1'`
 */
export function nodeRequiresEsm(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major >= 23 || (major === 22 && minor >= 12) || (major === 20 && minor >= 19);
}

/**
 * Fails at boot, naming the option, when an option that loads jose is used on a Node that cannot load it: without
 * this the first sign-in or token check would fail instead.
 *
 * @param option - the option that needs jose, as its message names it: `'auth.server'`
 * @param version - the running Node's version; a test passes another
 * @throws {McpConfigError} `ERR_MCP_INVALID_OPTION` on a Node older than 20.19 (or 21, or 22 before 22.12)
 */
export function requireJoseFor(option: string, version: string = process.versions.node): void {
  if (nodeRequiresEsm(version)) return;
  throw new McpConfigError(
    'ERR_MCP_INVALID_OPTION',
    `option '${option}' needs ${REQUIRE_ESM_NODE} (this is Node ${version}): it signs or verifies JWTs with jose, an ES module that older Node versions cannot require()`,
  );
}

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
        `sign-in and JWT verification need jose, which needs ${REQUIRE_ESM_NODE} (this is ${process.version}): ${(err as Error).message}`,
      );
    }
  }
  return loaded;
}
