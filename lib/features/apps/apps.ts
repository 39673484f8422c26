// mcp.app(): an MCP App (SEP-1865) — a `ui://` HTML resource with its `_meta.ui` — and the tools that show it.

import path from 'node:path';
import { McpConfigError, type OptionKeys } from '../../options/config-error';
import { OptionReader } from '../../options/option-reader';
import { isObject } from '../../core/jsonrpc/types';
import { inProduction } from '../../core/node-env';
import { itemLabel, type McpRegistration } from '../../core/registry/definition';
import type { Registry } from '../../core/registry/registry';
import type { ToolDefinition } from '../../core/registry/tools';
import { UI_MIME_TYPE } from '../../core/registry/ui-link';
import type { RequestDispatcher } from '../../edge/host-routes/in-process';
import { CSP_KEYS, PERMISSION_KEYS, uiResourceMeta, type UiMetaOptions } from './app-ui-meta';
import { fileSource, routeSource, stringSource, type HtmlSource } from './html-source';

/** Default `maxBytes` of an app: its HTML, inlined scripts and styles included. */
export const DEFAULT_APP_MAX_BYTES = 4 * 1024 * 1024;

/** An MCP App, as registered with `mcp.app()`: exactly one of `html`, `file` and `route` gives its HTML. */
export interface McpAppOptions extends UiMetaOptions {
  /** One URI path segment (`A-Z a-z 0-9 . _ ~ -`): the app is served as `ui://<router name>/<name>`. */
  name: string;
  /** A display name for people. Defaults to none. */
  title?: string;
  /** What the app shows, listed with its resource. Defaults to none. */
  description?: string;
  /** The HTML itself. */
  html?: string;
  /** An `.html` file, read now (relative to the working directory); re-read when it changes unless NODE_ENV is production. */
  file?: string;
  /** A GET path of the host app (`/apps/order-form`), rendered in-process at each read, as the browser gets it. */
  route?: string;
  /** Largest HTML the app may be, in bytes; a larger page fails the read. Defaults to 4 MiB. */
  maxBytes?: number;
  /** Tools registered now, each linked to this app (a tool's own `ui` may add `visibility`). Defaults to none. */
  tools?: ReadonlyArray<ToolDefinition<never>>;
}

/** What `mcp.app()` returns: `remove()` (its `tools` too), and the app's `ui://` URI. */
export interface McpAppRegistration extends McpRegistration {
  /** The app's resource URI, `ui://<router name>/<name>`. */
  readonly uri: string;
}

const OPTION_KEYS: OptionKeys<McpAppOptions> = {
  name: true,
  title: true,
  description: true,
  html: true,
  file: true,
  route: true,
  maxBytes: true,
  tools: true,
  csp: true,
  permissions: true,
  prefersBorder: true,
  domain: true,
};
const APP_NAME = /^[A-Za-z0-9._~-]{1,128}$/;

/**
 * The `mcp.app()` of one router: checks an app's options, registers its resource in `registry`, then its `tools`.
 *
 * @param serverName - the router's name, the authority of its apps' `ui://` URIs
 * @param host - dispatches through the host app, for `route` apps
 * @example
 * ```ts
 * const app = createApps(registry, 'shop', bridge.throughHost);
 * app({ name: 'order-form', route: '/apps/order-form' }).uri; // 'ui://shop/order-form'
 * ```
 */
export function createApps(
  registry: Registry,
  serverName: string,
  host: RequestDispatcher,
): (options: McpAppOptions) => McpAppRegistration {
  return function app(options) {
    if (!isObject(options)) throw invalid(`mcp.app() needs an options object, got ${JSON.stringify(options)}`);
    const read = OptionReader.of(options, '', OPTION_KEYS, {
      item: itemLabel('app', options.name),
      nested: { csp: CSP_KEYS, permissions: PERMISSION_KEYS },
    });
    const { name, title, description } = options;
    if (typeof name !== 'string' || !APP_NAME.test(name) || name === '.' || name === '..')
      throw invalid(
        `app name ${JSON.stringify(name)} must be one URI path segment of A-Z a-z 0-9 . _ ~ -`,
        'ERR_MCP_INVALID_NAME',
      );
    const label = `app '${name}'`;
    const maxBytes = read.positiveInteger('maxBytes', DEFAULT_APP_MAX_BYTES, 'a positive number of bytes');
    const tools = read.array('tools', isToolObject, 'an array of tool definitions') ?? [];
    const html = sourceOf(read, maxBytes, label, host);
    const ui = uiResourceMeta(read);
    const uri = `ui://${encodeURIComponent(serverName)}/${name}`;
    // SEP-1865: `_meta.ui` on the listed resource and on the read contents (where hosts look first).
    const meta = ui === undefined ? undefined : { ui };
    const resource = registry.addApp(name, {
      uri,
      name,
      title,
      description,
      _meta: meta,
      read: async (target, ctx) => ({ uri: target, mimeType: UI_MIME_TYPE, text: await html(ctx), _meta: meta }),
    });
    const linked: McpRegistration[] = [];
    try {
      for (const tool of tools) linked.push(registry.addTool(linkedTo(tool, name, label)));
    } catch (error) {
      for (const done of linked) done.remove();
      resource.remove();
      throw error;
    }
    return {
      uri,
      remove: () => {
        for (const done of linked) done.remove();
        return resource.remove();
      },
    };
  };
}

function sourceOf(
  read: OptionReader<McpAppOptions>,
  maxBytes: number,
  label: string,
  host: RequestDispatcher,
): HtmlSource {
  const given = (['html', 'file', 'route'] as const).filter((key) => read.raw(key) !== undefined);
  if (given.length !== 1)
    throw invalid(
      `${label} needs exactly one of html, file or route, got ${given.length === 0 ? 'none' : given.join(' and ')}`,
    );
  const html = read.string('html');
  if (html !== undefined) return stringSource(html, maxBytes, label);
  const file = read.string('file', { nonEmpty: true });
  if (file !== undefined) return fileSource(path.resolve(file), maxBytes, label, !inProduction());
  const route = read.raw('route');
  if (typeof route !== 'string' || !/^\/[^\s#]*$/.test(route))
    throw read.invalid('route', "a path of the host app starting with '/'");
  return routeSource(route, maxBytes, label, host);
}

/** An object, for `tools`: the registry checks the rest of each definition, as `mcp.tool()`'s. */
const isToolObject = (item: unknown): item is ToolDefinition<never> => isObject(item);

/** A tool of an app's `tools`, linked to it: its own `ui` may only add `visibility`, for this app. */
function linkedTo(tool: ToolDefinition<never>, name: string, label: string): ToolDefinition<never> {
  const own = tool.ui;
  if (own === undefined) return withUi(tool, name);
  const app = typeof own === 'string' ? own : isObject(own) ? own.app : undefined;
  if (app !== name && app !== undefined)
    throw invalid(
      `${label} tool '${String(tool.name)}' links to the app '${String(app)}'; a tool of an app's tools links to that app`,
    );
  return withUi(tool, typeof own === 'string' ? name : { ...own, app: name });
}

/** The tool with `ui` set, keeping its prototype (so a class instance's methods and `this` still work). */
function withUi(tool: ToolDefinition<never>, ui: ToolDefinition['ui']): ToolDefinition<never> {
  return Object.assign(Object.create(Object.getPrototypeOf(tool) as object) as object, tool, {
    ui,
  }) as ToolDefinition<never>;
}

function invalid(
  message: string,
  code: 'ERR_MCP_INVALID_OPTION' | 'ERR_MCP_UNKNOWN_OPTION' | 'ERR_MCP_INVALID_NAME' = 'ERR_MCP_INVALID_OPTION',
): McpConfigError {
  return new McpConfigError(code, message);
}
