// An app's `_meta.ui` (SEP-1865 UI Resource Format): its CSP origins, sandbox permissions, border and domain, checked once.

import { isIPv6 } from 'node:net';
import type { OptionKeys } from '../../options/config-error';
import type { OptionReader } from '../../options/option-reader';
import { isObject } from '../../core/jsonrpc/types';

/** The origins an app may reach (SEP-1865 `McpUiResourceCsp`); the host builds its Content-Security-Policy from them. */
export interface McpAppCsp {
  /** Origins for fetch, XHR and WebSocket (`connect-src`). Defaults to none. */
  connectDomains?: string[];
  /** Origins for scripts, styles, images, fonts and media (`script-src`, `style-src`, …). Defaults to none. */
  resourceDomains?: string[];
  /** Origins of nested iframes (`frame-src`). Defaults to none. */
  frameDomains?: string[];
  /** Origins allowed as the document's base URI (`base-uri`). Defaults to the sandbox's own origin. */
  baseUriDomains?: string[];
}

/** Browser features the app asks the host for (SEP-1865 `McpUiResourcePermissions`); each is `{}` when asked. */
export interface McpAppPermissions {
  /** The camera (Permissions Policy `camera`). */
  camera?: Record<string, never>;
  /** The microphone (`microphone`). */
  microphone?: Record<string, never>;
  /** The device's position (`geolocation`). */
  geolocation?: Record<string, never>;
  /** Writing to the clipboard (`clipboard-write`). */
  clipboardWrite?: Record<string, never>;
}

/** What {@link uiResourceMeta} reads: the `_meta.ui` part of `mcp.app()`'s options. */
export interface UiMetaOptions {
  /** The origins the app may reach; the host's restrictive default without it (no network, nothing from elsewhere). */
  csp?: McpAppCsp;
  /** Browser features the app asks for; hosts may grant them. Defaults to none. */
  permissions?: McpAppPermissions;
  /** Whether the host draws a border and background around the app. Defaults to the host's choice. */
  prefersBorder?: boolean;
  /** A dedicated sandbox origin, in the host's own format. Defaults to the host's per-conversation origin. */
  domain?: string;
}

export const CSP_KEYS: OptionKeys<McpAppCsp> = {
  connectDomains: true,
  resourceDomains: true,
  frameDomains: true,
  baseUriDomains: true,
};
export const PERMISSION_KEYS: OptionKeys<McpAppPermissions> = {
  camera: true,
  microphone: true,
  geolocation: true,
  clipboardWrite: true,
};

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
/**
 * A CSP source the host may paste into its policy: an http(s)/ws(s) scheme, a host (optionally `*.` for subdomains,
 * of a name with at least one dot), an optional port, and at most a `/` after it. Nothing that could end a
 * directive or widen it: no quotes, spaces, semicolons, `*` alone, `data:` or `javascript:`.
 */
const ORIGIN = new RegExp(
  `^(?:https?|wss?)://(?:\\*\\.${LABEL}(?:\\.${LABEL})+|${LABEL}(?:\\.${LABEL})*|\\[([0-9a-f:.]+)\\])(?::(\\d{1,5}))?/?$`,
  'i',
);

/** An origin {@link ORIGIN} matches whose IPv6 literal is one and whose port is 1-65535 (a CSP source is a host). */
function isOrigin(origin: unknown): origin is string {
  const match = typeof origin === 'string' ? ORIGIN.exec(origin) : null;
  if (match === null) return false;
  const [, ipv6, port] = match;
  return (ipv6 === undefined || isIPv6(ipv6)) && (port === undefined || (Number(port) >= 1 && Number(port) <= 65535));
}

/** What an origin list must hold, in the message of one that does not. */
const ORIGINS =
  'an array of origins: scheme://host[:port] with http, https, ws or wss ' +
  "(a '*.' subdomain wildcard is allowed; an international name in its xn-- form)";

/**
 * Checks the `_meta.ui` options of an app and returns `_meta.ui` as it goes on the wire (undefined when empty).
 *
 * @throws {McpConfigError} naming the option: an unknown CSP or permission key, an origin that is not one, a
 *   permission that is not `{}`, a `prefersBorder` that is not a boolean, a `domain` that is not a plain string
 * @example
 * ```ts
 * uiResourceMeta(OptionReader.of(app, '', OPTION_KEYS, { item: "app 'form'" })); // apps.ts reads an app so
 * // { csp: { resourceDomains: ['https://cdn.example.com'] }, prefersBorder: true }
 * ```
 */
export function uiResourceMeta(read: OptionReader<UiMetaOptions>): Record<string, unknown> | undefined {
  const ui: Record<string, unknown> = {};
  if (read.raw('csp') !== undefined) ui.csp = checkCsp(read.nested('csp', CSP_KEYS));
  if (read.raw('permissions') !== undefined)
    ui.permissions = checkPermissions(read.nested('permissions', PERMISSION_KEYS));
  if (read.raw('prefersBorder') !== undefined) ui.prefersBorder = read.boolean('prefersBorder', false);
  const domain = read.string('domain');
  if (domain !== undefined) {
    // Host-specific (SEP-1865 `domain`), so only its shape is checked: one token, nothing that could split a header.
    if (!/^[^\s"';,]{1,253}$/.test(domain))
      throw read.invalid('domain', "a host name such as 'a904794854a047f6.claudemcpcontent.com'");
    ui.domain = domain;
  }
  return Object.keys(ui).length === 0 ? undefined : ui;
}

/** The keys given (and not undefined) of nested options, in the order given: the order they go on the wire. */
function givenKeys<T extends object>(read: OptionReader<T>): Array<Extract<keyof T, string>> {
  return Object.keys(read.options).filter((key) => read.options[key as keyof T] !== undefined) as Array<
    Extract<keyof T, string>
  >;
}

function checkCsp(read: OptionReader<McpAppCsp>): Record<string, string[]> {
  const checked: Record<string, string[]> = {};
  for (const key of givenKeys(read)) checked[key] = [...(read.array(key, isOrigin, ORIGINS) ?? [])];
  return checked;
}

function checkPermissions(read: OptionReader<McpAppPermissions>): Record<string, Record<string, never>> {
  const checked: Record<string, Record<string, never>> = {};
  for (const key of givenKeys(read)) {
    const value = read.raw(key);
    if (!isObject(value) || Object.keys(value).length > 0) throw read.invalid(key, '{} to ask for it');
    checked[key] = {};
  }
  return checked;
}
