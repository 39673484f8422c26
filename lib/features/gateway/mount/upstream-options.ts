// The options of mcp.upstream(): checked and defaulted once, at registration (a bad value throws McpConfigError naming it).

import { isProtocolHeader } from '../http-client/upstream-envelope';
import { invalidOption, isPositiveInteger, McpConfigError, rejectUnknownKeys } from '../../../options/config-error';
import { itemLabel } from '../../../core/registry/definition';
import { isGuardList, GUARD_LIST_EXPECTED, type ToolGuard } from '../../../core/registry/guards';
import type { RequestContext } from '../../../core/registry/request-context';
import { PREFIX } from './prefixed-names';
import { resolveStdio, STDIO_KEYS, type ResolvedStdio, type StdioUpstreamOptions } from '../stdio/stdio-options';
import {
  resolveLimits,
  UPSTREAM_LIMITS_KEYS,
  type ResolvedLimits,
  type UpstreamLimitsOptions,
} from './upstream-limits';
import { resolveRoots, type UpstreamRoot } from './upstream-roots';
import { resolveTools, UPSTREAM_TOOLS_KEYS, type UpstreamToolsOptions } from './upstream-tools';

export type { NameMatcher, UpstreamToolsOptions } from './upstream-tools';

/** Default `timeoutMs`: the most one forwarded call may take. */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 60_000;
/** Default `listTimeoutMs`: how long a list waits for an upstream's first lists, and the most one list fetch may take. */
export const DEFAULT_LIST_TIMEOUT_MS = 5_000;
/** Default `graceMs`: how long a failing upstream's last good lists are still served before its items drop out. */
export const DEFAULT_GRACE_MS = 5 * 60_000;

/** Headers for an upstream: its credentials. A function gets the caller's context, or undefined for the gateway's own requests. */
export type UpstreamHeaders =
  | Readonly<Record<string, string>>
  | ((ctx: RequestContext | undefined) => Record<string, string> | Promise<Record<string, string>>);

/**
 * An upstream MCP server, mounted beside the router's own items with `mcp.upstream()`: a Streamable HTTP endpoint
 * (`url`) or a local program spoken to over stdio (`command`, and the options of {@link StdioUpstreamOptions}).
 */
export interface UpstreamOptions extends StdioUpstreamOptions {
  /**
   * Namespace of its items: tools and prompts become `<prefix>__<name>`, resource URIs `<prefix>+<uri>`. A letter,
   * then up to 31 letters, digits or `-`. From this call on the namespace is its alone (`<prefix>__…`, `<prefix>+…`,
   * `ui://<prefix>+…`, without case): other upstreams' items there are skipped, and the router's own registration
   * there throws. Omitted: a plain proxy, names and URIs untouched, which may not name anything in a prefix's namespace.
   */
  prefix?: string;
  /** How logs, errors and `status()` name it (never by URL). Defaults to `prefix`; required without one. */
  name?: string;
  /** Its Streamable HTTP endpoint (`http:` or `https:`). Exactly one of `url` and `command`. */
  url?: string;
  /**
   * Sent on every request to it: its credentials. A function is called per request with the caller's `ctx` (per-user
   * tokens, token exchange), and with `undefined` for the gateway's own requests (handshake, lists). The caller's
   * `Authorization` and cookies never reach an upstream: MCP authorization › Token Passthrough is forbidden. The
   * protocol headers (`MCP-Protocol-Version`, `Mcp-*`, `Content-Type`, `Accept`, `Last-Event-ID`) are the gateway's
   * own on each hop: an object naming one is refused at boot, and a function's are dropped.
   */
  headers?: UpstreamHeaders;
  /** Headers of the caller's request copied to the upstream (an allow-list, e.g. `['x-request-id', 'traceparent']`). */
  forwardHeaders?: readonly string[];
  /** Which tools, under which names; `false` mounts none. Defaults to all. */
  tools?: boolean | UpstreamToolsOptions;
  /** Whether its resources and resource templates are mounted. Defaults to true. */
  resources?: boolean;
  /** Whether its prompts are mounted. Defaults to true. */
  prompts?: boolean;
  /** The most one forwarded call may take, in ms. Defaults to 60,000. */
  timeoutMs?: number;
  /** The most one list fetch may take, and how long our lists wait for its first lists, in ms. Defaults to 5,000. */
  listTimeoutMs?: number;
  /** How long its last good lists are served while it fails, in ms; then its items drop out until it is back. Defaults to 5 minutes. */
  graceMs?: number;
  /** Guards of its tools by their upstream name, run as a local tool's `guards` are (a payment, a quota). */
  guards?: Readonly<Record<string, readonly ToolGuard[]>>;
  /** Scopes a caller's token must all have to see and use its items. Defaults to none. */
  scopes?: readonly string[];
  /**
   * What it may contribute to the router's lists, in bytes: per entry (`maxDescriptionBytes`, `maxSchemaBytes`,
   * `maxItemBytes`) and in all (`maxListBytes`). Defaults to `{ maxDescriptionBytes: 8192, maxSchemaBytes: 65536,
   * maxItemBytes: 262144, maxListBytes: 2097152 }`.
   */
  limits?: UpstreamLimitsOptions;
  /**
   * The roots (`{ uri: 'file://…', name? }`) the gateway answers when the upstream asks `roots/list` outside any call
   * (server-filesystem asks at each start, and takes them as its allowed directories), or during a call on a
   * connection every caller shares (a `'shared'` stdio process, a 2025 HTTP session): one caller's roots would be
   * everyone's. Only a `'per-principal'` process or a 2026 HTTP request asks the caller. Defaults to `[]`.
   */
  roots?: readonly UpstreamRoot[];
}

/** The options after checking: internal. */
export interface ResolvedUpstream {
  readonly prefix: string | undefined;
  readonly name: string;
  /** Its endpoint; undefined for a stdio upstream. */
  readonly url: string | undefined;
  /** Its program and processes; undefined for an HTTP upstream. */
  readonly stdio: ResolvedStdio | undefined;
  readonly headers: UpstreamHeaders | undefined;
  /** Lower-case names. */
  readonly forwardHeaders: readonly string[];
  readonly tools: false | Required<UpstreamToolsOptions>;
  readonly resources: boolean;
  readonly prompts: boolean;
  readonly timeoutMs: number;
  readonly listTimeoutMs: number;
  readonly graceMs: number;
  readonly guards: Readonly<Record<string, readonly ToolGuard[]>>;
  readonly scopes: readonly string[] | undefined;
  readonly limits: ResolvedLimits;
  readonly roots: readonly UpstreamRoot[];
}

const KNOWN: { [K in keyof Required<UpstreamOptions>]: true } = {
  prefix: true,
  name: true,
  url: true,
  headers: true,
  forwardHeaders: true,
  tools: true,
  resources: true,
  prompts: true,
  timeoutMs: true,
  listTimeoutMs: true,
  graceMs: true,
  guards: true,
  scopes: true,
  limits: true,
  roots: true,
  ...STDIO_KEYS,
};
/** The options of an HTTP upstream only: a stdio one has no request headers. */
const HTTP_ONLY = ['headers', 'forwardHeaders'] as const;
/**
 * Headers that may not be forwarded: the caller's credentials (MCP authorization › Token Passthrough; RFC 9110
 * §11.6.2), the protocol's own headers (the upstream hop has its own session and version), and hop-by-hop ones.
 */
const NEVER_FORWARDED =
  /^(authorization|proxy-authorization|cookie|set-cookie|host|content-length|content-type|accept|connection|keep-alive|transfer-encoding|upgrade|te|trailer|last-event-id|mcp-.*)$/;
/** RFC 9110 §5.1 token: a header name. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** `url` xor `command`: the endpoint, or the program and its options (an HTTP-only option with `command` is refused). */
function transportOf(options: UpstreamOptions, label: string): Pick<ResolvedUpstream, 'url' | 'stdio'> {
  const { url, command } = options;
  if ((url === undefined) === (command === undefined)) {
    throw new McpConfigError(
      'ERR_MCP_INVALID_OPTION',
      `${label} needs exactly one of 'upstream.url' (a Streamable HTTP endpoint) and 'upstream.command' (a local program spoken to over stdio)`,
    );
  }
  if (command !== undefined) {
    const httpOnly = HTTP_ONLY.find((key) => options[key] !== undefined);
    if (httpOnly !== undefined)
      throw new McpConfigError(
        'ERR_MCP_INVALID_OPTION',
        `option '${label}.${httpOnly}' is for HTTP upstreams; a stdio upstream (command) gets its credentials through 'env'`,
      );
    return { url: undefined, stdio: resolveStdio(options, label) };
  }
  const stdioOnly = (Object.keys(STDIO_KEYS) as (keyof typeof STDIO_KEYS)[]).find((key) => options[key] !== undefined);
  if (stdioOnly !== undefined)
    throw new McpConfigError(
      'ERR_MCP_INVALID_OPTION',
      `option '${label}.${stdioOnly}' is for stdio upstreams (command), not for one with a url`,
    );
  let parsed: URL | undefined;
  try {
    parsed = typeof url === 'string' ? new URL(url) : undefined;
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
    throw new McpConfigError('ERR_MCP_INVALID_OPTION', `option '${label}.url' must be an http: or https: URL`);
  return { url: parsed.href, stdio: undefined };
}

function checkDuration(value: unknown, option: string): void {
  if (!isPositiveInteger(value)) throw invalidOption(option, 'a positive number of milliseconds', value);
}

/**
 * @throws {McpConfigError} for an unknown key (`upstream 'fs': unknown option 'prefx'. Did you mean 'prefix'?`) or a
 *   bad value, naming `upstream.<key>`; for a forwarded header that
 *   carries credentials or belongs to the protocol
 */
export function resolveUpstream(options: UpstreamOptions): ResolvedUpstream {
  if (typeof options !== 'object' || options === null) throw invalidOption('upstream', 'an object', options);
  rejectUnknownKeys(options, KNOWN, '', {
    item: itemLabel('upstream', options.name ?? options.prefix),
    nested: { tools: UPSTREAM_TOOLS_KEYS, limits: UPSTREAM_LIMITS_KEYS },
  });
  const { prefix, headers, forwardHeaders = [], resources = true, prompts = true } = options;
  if (prefix !== undefined && (typeof prefix !== 'string' || !PREFIX.test(prefix)))
    throw invalidOption('upstream.prefix', 'a letter then up to 31 letters, digits or -', prefix);
  const name = options.name ?? prefix;
  if (typeof name !== 'string' || name.trim() === '' || name.length > 64) {
    throw invalidOption(
      'upstream.name',
      prefix === undefined
        ? 'a name of 1–64 characters (required without a prefix: logs and errors name the upstream by it, never by URL)'
        : 'a name of 1–64 characters',
      options.name,
    );
  }
  const label = `upstream '${name}'`;
  const transport = transportOf(options, label);
  if (
    headers !== undefined &&
    typeof headers !== 'function' &&
    (typeof headers !== 'object' ||
      headers === null ||
      !Object.values(headers).every((value) => typeof value === 'string'))
  ) {
    throw new McpConfigError(
      'ERR_MCP_INVALID_OPTION',
      `option '${label}.headers' must be an object of header → string, or a function (ctx) => headers`,
    );
  }
  const protocolHeader =
    typeof headers === 'object' && headers !== null ? Object.keys(headers).find(isProtocolHeader) : undefined;
  if (protocolHeader !== undefined) {
    throw new McpConfigError(
      'ERR_MCP_INVALID_OPTION',
      `option '${label}.headers' may not set '${protocolHeader}': the gateway writes the protocol headers of each hop itself`,
    );
  }
  if (
    !Array.isArray(forwardHeaders) ||
    !forwardHeaders.every((header) => typeof header === 'string' && HEADER_NAME.test(header))
  ) {
    throw new McpConfigError(
      'ERR_MCP_INVALID_OPTION',
      `option '${label}.forwardHeaders' must be an array of header names`,
    );
  }
  const forwarded = forwardHeaders.map((header) => header.toLowerCase());
  const refused = forwarded.find((header) => NEVER_FORWARDED.test(header));
  if (refused !== undefined) {
    throw new McpConfigError(
      'ERR_MCP_INVALID_OPTION',
      `option '${label}.forwardHeaders' may not hold '${refused}': the caller's credentials never reach an upstream (MCP authorization › Token Passthrough) and protocol headers belong to each hop; give the upstream its own credentials with 'headers'`,
    );
  }
  if (typeof resources !== 'boolean') throw invalidOption(`${label}.resources`, 'a boolean', resources);
  if (typeof prompts !== 'boolean') throw invalidOption(`${label}.prompts`, 'a boolean', prompts);
  const {
    timeoutMs = DEFAULT_UPSTREAM_TIMEOUT_MS,
    listTimeoutMs = DEFAULT_LIST_TIMEOUT_MS,
    graceMs = DEFAULT_GRACE_MS,
    guards = {},
    scopes,
  } = options;
  checkDuration(timeoutMs, `${label}.timeoutMs`);
  checkDuration(listTimeoutMs, `${label}.listTimeoutMs`);
  checkDuration(graceMs, `${label}.graceMs`);
  if (typeof guards !== 'object' || guards === null)
    throw invalidOption(`${label}.guards`, 'an object of upstream tool name → guards', guards);
  for (const [tool, list] of Object.entries(guards)) {
    if (!isGuardList(list))
      throw new McpConfigError(
        'ERR_MCP_INVALID_OPTION',
        `option '${label}.guards.${tool}' must be ${GUARD_LIST_EXPECTED}`,
      );
  }
  if (
    scopes !== undefined &&
    (!Array.isArray(scopes) || !scopes.every((scope) => typeof scope === 'string' && scope !== ''))
  )
    throw invalidOption(`${label}.scopes`, 'an array of non-empty strings', scopes);
  return Object.freeze({
    prefix,
    name,
    ...transport,
    headers,
    forwardHeaders: Object.freeze(forwarded),
    tools: resolveTools(options.tools, label),
    resources,
    prompts,
    timeoutMs,
    listTimeoutMs,
    graceMs,
    guards: Object.freeze({ ...guards }),
    scopes: scopes && Object.freeze([...scopes]),
    limits: resolveLimits(options.limits, label),
    roots: resolveRoots(options.roots, label),
  });
}
