// CORS for MCP in browsers: origins from the `origins` policy, MCP's headers allowed and exposed.

import type { IncomingMessage, ServerResponse } from 'node:http';
import cors, { type CorsOptions } from 'cors';
import type { RequestHandler } from 'express';
import { definedOnly, invalidOption, McpConfigError, type OptionKeys } from '../../options/config-error';
import { OptionReader } from '../../options/option-reader';
import { isObject } from '../../core/jsonrpc/types';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS } from '../http/mcp-headers';
import { memoizeBounded } from '../http/bounded-memo';
import type { OriginsOption } from './origin-host';

/** Default `cors.maxAge` (options.ts): how long, in seconds, a browser may cache a preflight's answer. */
export const DEFAULT_CORS_MAX_AGE_S = 600;
/** The router's own list of allowed request headers (options.ts), which preflights may extend with `Mcp-Param-*`. */
const DEFAULT_ALLOWED_HEADERS = CORS_ALLOWED_HEADERS.join(',');
/** An `Mcp-Param-{Name}` header name (MCP 2026-07-28: the name is an RFC 9110 token). */
const PARAM_HEADER = /^mcp-param-[!#$%&'*+\-.^_`|~0-9a-z]+$/i;

/**
 * The allowed headers of one preflight: the router's, plus the `Mcp-Param-*` headers it asks for. Tools name those
 * in their `"x-mcp-header"` arguments and may come and go, so they are taken from the request rather than listed.
 * (No `Vary` for it: a response to OPTIONS is not cacheable, RFC 9110 §9.3.7; browsers key their preflight cache
 * on the header names themselves.)
 */
export function allowedHeadersFor(requested: string | undefined): string {
  if (requested === undefined) return DEFAULT_ALLOWED_HEADERS;
  const params = requested
    .split(',')
    .map((name) => name.trim())
    .filter((name) => PARAM_HEADER.test(name));
  return params.length === 0 ? DEFAULT_ALLOWED_HEADERS : `${DEFAULT_ALLOWED_HEADERS},${params.join(',')}`;
}

/**
 * The `cors` package options of a router: `origin` from the `origins` policy, over the resolved `cors` option
 * (the caller's over the router's defaults, options.ts).
 *
 * @example
 * ```ts
 * app.use(cors(corsOptions(config.origins, isAllowedOrigin, config.cors)));
 * ```
 */
export function corsOptions(
  origins: OriginsOption | undefined,
  isAllowedOrigin: (origin: string) => boolean,
  resolved: Readonly<CorsOptions>,
): CorsOptions {
  return {
    origin:
      origins === '*' && resolved.credentials !== true
        ? '*'
        : (origin, callback) => callback(null, origin !== undefined && isAllowedOrigin(origin)),
    ...resolved,
  };
}

/**
 * The CORS middleware of a router: the `cors` package with {@link corsOptions}. A request without an `Origin`
 * (every non-browser client) skips the package, which would add nothing to it unless the policy is `'*'`; with a
 * list of origins, the package's answer to an actual request is recorded once per origin and replayed. While
 * `allowedHeaders` is the router's own, a preflight's `Mcp-Param-*` headers are allowed too ({@link allowedHeadersFor}).
 *
 * @example
 * ```ts
 * frontDoor.push(createCorsHandler(config.origins, isAllowedOrigin, config.cors));
 * ```
 */
export function createCorsHandler(
  origins: OriginsOption | undefined,
  isAllowedOrigin: (origin: string) => boolean,
  resolved: Readonly<CorsOptions>,
): RequestHandler {
  const options = corsOptions(origins, isAllowedOrigin, resolved);
  const handleWithPackage =
    options.allowedHeaders === DEFAULT_ALLOWED_HEADERS
      ? cors((req, callback) =>
          callback(
            null,
            req.method === 'OPTIONS'
              ? { ...options, allowedHeaders: allowedHeadersFor(req.headers['access-control-request-headers']) }
              : options,
          ),
        )
      : cors(options);
  if (options.origin === '*') return handleWithPackage;
  // A predicate may change its mind between requests (a list it reads): its answers are never remembered.
  const actualAnswerOf =
    typeof origins === 'function'
      ? undefined
      : memoizeBounded((origin) => recordActualAnswer(handleWithPackage, origin), MAX_ORIGINS_REMEMBERED);
  return function mcpCors(req: IncomingMessage, res: ServerResponse, next: () => void) {
    const { origin } = req.headers;
    if (origin === undefined) return next();
    // A preflight's answer depends on the headers it asks for; a Vary the app set first must be merged by the package.
    const recorded =
      actualAnswerOf === undefined || req.method === 'OPTIONS' || res.hasHeader('vary')
        ? undefined
        : actualAnswerOf(origin);
    if (recorded === undefined || recorded === null) return handleWithPackage(req, res, next);
    for (const [name, value] of recorded) res.setHeader(name, value);
    next();
  } as RequestHandler;
}

/** Origins whose answer is remembered at most: the few a deployment's browsers come from. */
const MAX_ORIGINS_REMEMBERED = 256;

/**
 * What the `cors` package writes on an actual (not preflight) request from `origin`, in order: with the router's
 * options it depends on the origin alone, so the package runs once per origin and its answer is replayed. Null
 * when the package did not answer at once: remembered too, so such an origin costs the package alone, not a
 * recording as well on every request.
 */
function recordActualAnswer(
  handleWithPackage: RequestHandler,
  origin: string,
): ReadonlyArray<readonly [string, string]> | null {
  // By lower-case name, as a response keeps them; each with the name as the package spelt it, for the wire.
  const written = new Map<string, readonly [string, string]>();
  const recorder = {
    getHeader: (name: string) => written.get(name.toLowerCase())?.[1],
    setHeader(name: string, value: unknown) {
      written.delete(name.toLowerCase());
      written.set(name.toLowerCase(), [name, String(value)]);
    },
  };
  let answered = false;
  handleWithPackage({ method: 'POST', headers: { origin } } as never, recorder as never, () => {
    answered = true;
  });
  return answered ? Object.freeze([...written.values()]) : null;
}

/** Every option of the `cors` package, which does not check them itself. */
const CORS_OPTION_KEYS: OptionKeys<CorsOptions> = {
  origin: true,
  methods: true,
  allowedHeaders: true,
  exposedHeaders: true,
  credentials: true,
  maxAge: true,
  preflightContinue: true,
  optionsSuccessStatus: true,
};

/**
 * Checks the `cors` option once, at router creation, and sets the router's defaults under the caller's values.
 *
 * @param origins - the `origins` option, which CORS takes its `origin` from
 * @returns the `cors` package options but `origin`, frozen; false for no CORS
 * @throws {McpConfigError} `ERR_MCP_UNKNOWN_OPTION` for a key the package does not have; `ERR_MCP_INVALID_OPTION` for
 *   a value that is no options object, `cors.origin`, or a wildcard origin with credentials
 */
export function resolveCors(
  cors: CorsOptions | false | undefined,
  origins: OriginsOption | undefined,
): Readonly<CorsOptions> | false {
  if (cors === false) return false;
  if (cors !== undefined && !isObject(cors)) throw invalidOption('cors', 'cors package options or false', cors);
  const read = OptionReader.of<CorsOptions>(cors, 'cors', CORS_OPTION_KEYS);
  if (read.raw('origin') !== undefined)
    throw new McpConfigError(
      'ERR_MCP_INVALID_OPTION',
      "option 'cors.origin' is not used: set 'origins', which drives both CORS and the Origin check",
    );
  // The CORS spec forbids a wildcard origin with credentials; refusing it here beats a browser error later.
  if (origins === '*' && cors?.credentials === true) {
    throw new McpConfigError(
      'ERR_MCP_INVALID_OPTION',
      "options 'origins: \"*\"' and 'cors.credentials: true' cannot go together: list the origins that may send credentials",
    );
  }
  // `Mcp-Session-Id` and `WWW-Authenticate` are exposed, or a browser client could neither keep its session nor find
  // the authorization server (a common complaint about MCP servers). Lists joined once: the package joins an array
  // again on every request.
  return Object.freeze({
    methods: 'GET,POST,DELETE,OPTIONS',
    allowedHeaders: CORS_ALLOWED_HEADERS.join(','),
    exposedHeaders: CORS_EXPOSED_HEADERS.join(','),
    maxAge: DEFAULT_CORS_MAX_AGE_S,
    ...(cors && definedOnly(cors)),
  });
}
