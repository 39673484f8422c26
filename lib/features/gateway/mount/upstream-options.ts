// The options of mcp.upstream(): checked and defaulted once, at registration (a bad value throws McpConfigError naming it).

import { isProtocolHeader } from '../http-client/upstream-envelope';
import { isObject } from '../../../core/jsonrpc/types';
import { invalidOption } from '../../../options/config-error';
import { OptionReader } from '../../../options/option-reader';
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
import { isTokenExchange, type TokenExchange } from '../exchange/token-exchange';

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
  /**
   * Calls it as the caller: each caller's request carries `Authorization: Bearer <a token for the upstream>` obtained
   * for that caller by {@link tokenExchange} (RFC 8693), never the caller's own token. The gateway's own requests
   * (handshake, lists, notification stream) carry `headers` (called without a caller), not an exchanged token. A
   * 2025 upstream gets a session per caller. With `command`: only with `processes: 'per-principal'`, whose `env`
   * function calls `auth.tokenFor(ctx)`. Defaults to none.
   */
  auth?: TokenExchange;
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
  /** The caller's exchanged token, sent on each caller's request. */
  readonly auth: TokenExchange | undefined;
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
  auth: true,
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

type Read = OptionReader<UpstreamOptions>;

/** What a message shows of `headers` or `env`, which may hold secrets: its type, never its value. */
const kindOf = (key: keyof UpstreamOptions, value: unknown): unknown =>
  key === 'headers' || key === 'env' ? typeof value : value;

/** `url` xor `command`: the endpoint, or the program and its options (an HTTP-only option with `command` is refused). */
function transportOf(read: Read): Pick<ResolvedUpstream, 'url' | 'stdio'> {
  const { url, command } = read.options;
  if ((url === undefined) === (command === undefined))
    throw read.invalid(
      'url',
      "set when 'command' is not, and only then: an upstream is a Streamable HTTP endpoint (url) or a local program spoken to over stdio (command)",
    );
  if (command !== undefined) {
    const httpOnly = HTTP_ONLY.find((key) => read.options[key] !== undefined);
    if (httpOnly !== undefined)
      throw read.invalid(
        httpOnly,
        "absent for a stdio upstream (command), which gets its credentials through 'env'",
        kindOf(httpOnly, read.options[httpOnly]),
      );
    return { url: undefined, stdio: resolveStdio(read) };
  }
  const stdioOnly = (Object.keys(STDIO_KEYS) as (keyof typeof STDIO_KEYS)[]).find(
    (key) => read.options[key] !== undefined,
  );
  if (stdioOnly !== undefined)
    throw read.invalid(
      stdioOnly,
      'absent for an HTTP upstream (url): it is for stdio upstreams (command)',
      kindOf(stdioOnly, read.options[stdioOnly]),
    );
  return { url: read.url('url', { required: true }).href, stdio: undefined };
}

/** `headers`: an object of strings without the protocol's own, or a function (whose protocol headers are dropped). */
function resolveHeaders(read: Read): UpstreamHeaders | undefined {
  const headers = read.raw('headers');
  if (headers === undefined || typeof headers === 'function') return headers;
  if (!isObject(headers) || !Object.values(headers).every((value) => typeof value === 'string'))
    throw read.invalid('headers', 'an object of header → string, or a function (ctx) => headers', typeof headers);
  const protocolHeader = Object.keys(headers).find(isProtocolHeader);
  if (protocolHeader !== undefined)
    throw read.invalid(
      'headers',
      'free of protocol headers: the gateway writes those of each hop itself',
      protocolHeader,
    );
  return headers as UpstreamHeaders;
}

/** `auth`: a {@link tokenExchange}; on a stdio upstream, only where each caller has its own process. */
function resolveAuth(read: Read, stdio: ResolvedStdio | undefined): TokenExchange | undefined {
  const auth = read.raw('auth');
  if (auth === undefined) return undefined;
  if (!isTokenExchange(auth)) throw read.invalid('auth', 'a tokenExchange({ … })', typeof auth);
  if (stdio !== undefined && stdio.processes !== 'per-principal')
    throw read.invalid(
      'auth',
      "absent for a 'shared' stdio process (one process serves every caller): use processes: 'per-principal' and pass the token through env",
      typeof auth,
    );
  return auth;
}

/** `forwardHeaders`: header names, lower-cased, none of them credentials, protocol or hop-by-hop headers. */
function resolveForwardHeaders(read: Read): readonly string[] {
  const names = read.array('forwardHeaders', isHeaderName, 'an array of header names') ?? [];
  const forwarded = names.map((header) => header.toLowerCase());
  const refused = forwarded.find((header) => NEVER_FORWARDED.test(header));
  if (refused !== undefined)
    throw read.invalid(
      'forwardHeaders',
      "free of the caller's credentials (MCP authorization › Token Passthrough: give the upstream its own with 'headers') and of the protocol headers each hop writes itself",
      refused,
    );
  return Object.freeze(forwarded);
}

/** `guards`: a guard list per upstream tool name. */
function resolveGuards(read: Read): Readonly<Record<string, readonly ToolGuard[]>> {
  const guards = read.raw('guards') ?? {};
  if (!isObject(guards)) throw read.invalid('guards', 'an object of upstream tool name → guards');
  const byTool = read.nested('guards');
  for (const [tool, list] of Object.entries(guards))
    if (!isGuardList(list)) throw byTool.invalid(tool, GUARD_LIST_EXPECTED);
  return Object.freeze({ ...guards });
}

/** `prefix` and `name`: the namespace, and how messages and status() name the upstream (the prefix, by default). */
function resolveNames(read: Read): Pick<ResolvedUpstream, 'prefix' | 'name'> {
  const prefix = read.raw('prefix');
  if (prefix !== undefined && (typeof prefix !== 'string' || !PREFIX.test(prefix)))
    throw read.invalid('prefix', 'a letter then up to 31 letters, digits or -');
  const name = read.raw('name') ?? prefix;
  if (typeof name !== 'string' || name.trim() === '' || name.length > 64)
    throw read.invalid(
      'name',
      prefix === undefined
        ? 'a name of 1–64 characters (required without a prefix: logs and errors name the upstream by it, never by URL)'
        : 'a name of 1–64 characters',
    );
  return { prefix, name };
}

const isHeaderName = (header: unknown): header is string => typeof header === 'string' && HEADER_NAME.test(header);
const isScope = (scope: unknown): scope is string => typeof scope === 'string' && scope !== '';

/**
 * @throws {McpConfigError} naming the upstream and the option: for an unknown key (`upstream 'fs': unknown option
 *   'prefx'. Did you mean 'prefix'?`), a bad value (`upstream 'fs': option 'timeoutMs' must be …`), a forwarded header
 *   that carries credentials or belongs to the protocol
 */
export function resolveUpstream(options: UpstreamOptions): ResolvedUpstream {
  if (!isObject(options)) throw invalidOption('upstream', 'an object', options);
  const item = itemLabel('upstream', options.name ?? options.prefix);
  const read = OptionReader.of(options, '', KNOWN, {
    item,
    nested: { tools: UPSTREAM_TOOLS_KEYS, limits: UPSTREAM_LIMITS_KEYS },
  });
  // Checked in this order: which fault a message names never depends on the order of the keys given.
  const transport = transportOf(read);
  return Object.freeze({
    ...resolveNames(read),
    ...transport,
    headers: resolveHeaders(read),
    auth: resolveAuth(read, transport.stdio),
    forwardHeaders: resolveForwardHeaders(read),
    resources: read.boolean('resources', true),
    prompts: read.boolean('prompts', true),
    timeoutMs: read.milliseconds('timeoutMs', DEFAULT_UPSTREAM_TIMEOUT_MS),
    listTimeoutMs: read.milliseconds('listTimeoutMs', DEFAULT_LIST_TIMEOUT_MS),
    graceMs: read.milliseconds('graceMs', DEFAULT_GRACE_MS),
    guards: resolveGuards(read),
    scopes: read.array('scopes', isScope, 'an array of non-empty strings'),
    tools: resolveTools(read),
    limits: resolveLimits(read),
    roots: resolveRoots(read, item),
  });
}
