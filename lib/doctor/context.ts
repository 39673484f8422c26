// What every check of the doctor gets: the endpoint, how to reach it, and what the user allowed.

import type { Finding } from './finding';
import type { HttpSettings } from './http';

/** The endpoint checked and what the command line asked. */
export interface DoctorTarget {
  /** The MCP endpoint's URL, as a client is given it. */
  readonly url: URL;
  /** `--token`: an access token to call with, as that principal. */
  readonly token?: string;
  /** `--origin`: a browser origin whose CORS preflight is checked. */
  readonly origin?: string;
  /** `--call`: tools the doctor may call (no other write is ever made). */
  readonly calls: readonly string[];
}

/** A check's inputs. */
export interface DoctorContext {
  readonly target: DoctorTarget;
  readonly http: HttpSettings;
}

/** One area's checks: never throws; what goes wrong is a finding. */
export type Check = (ctx: DoctorContext) => Promise<Finding[]>;
