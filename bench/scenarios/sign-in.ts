// Scenario `sign-in` (issue 30): what the router's own JWT access tokens cost the production configuration, against its static token.

import { SERVERS } from '../harness/catalog';
import type { BenchConfig } from '../harness/config';
import type { LoadGenerator } from '../harness/fleet';
import { measureLoad, type ServerRuns } from './load-runs';
import { ADD_CALL } from './throughput';

/**
 * The servers, (f) first: every ratio is to it, and the others run side by side with it. (f′) is a second (f)
 * process, the control; (fj) is (f) with `auth.server`, called with one router-issued token throughout.
 * (fd) is (f) with its token DPoP-bound through a `verify` callback: a proof verified per request; (fv) is the same
 * callback with the token unbound, sent as Bearer, which (fd) is judged against.
 * Bare Express is not needed: the question is the router against itself.
 */
export const SIGN_IN_SERVERS = [
  SERVERS.routerProduction,
  SERVERS.routerProductionAgain,
  SERVERS.routerProductionSignIn,
  SERVERS.routerProductionVerify,
  SERVERS.routerProductionDpop,
];

/** The servers differ by one verified-token cache hit per request, so at least this many rounds (not when quick). */
const MIN_ROUNDS = 5;

/** `tools/call add` in one session, as scenario 1's (f), against (f), (f′) and (fj). */
export function measureSignIn(config: BenchConfig, load: LoadGenerator): Promise<ServerRuns[]> {
  const repeats = config.quick ? config.repeats : Math.max(config.repeats, MIN_ROUNDS);
  return measureLoad({ ...config, repeats }, load, SIGN_IN_SERVERS, ADD_CALL, { sideBySide: true });
}
