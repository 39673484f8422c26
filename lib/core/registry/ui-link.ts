// MCP Apps (SEP-1865) in the registry: the apps registered, a tool's `ui` link to one, and who may see app-only tools.

import { McpConfigError, type OptionKeys } from '../../options/config-error';
import { isObject } from '../jsonrpc/types';

/** The extension's identifier, in capabilities on both sides (SEP-1865 Capability Negotiation). */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
/** The one MIME type of an app's HTML (SEP-1865 UI Resource Format). */
export const UI_MIME_TYPE = 'text/html;profile=mcp-app';
/** The flat key older hosts read the resource URI from; the official server helpers still write it beside `ui`. */
const LEGACY_RESOURCE_URI_KEY = 'ui/resourceUri';
/** How every UI resource URI starts (SEP-1865 UI Resource Format: it MUST use the `ui://` scheme). */
export const UI_SCHEME = 'ui://';

/** Who may call a tool linked to an app (SEP-1865 Resource Discovery): the model, the app (through the host), or both. */
export type UiVisibility = 'model' | 'app';

/**
 * A tool's app: its name (or full `ui://` URI), or that and who may call the tool. `visibility: ['app']` makes an
 * app-only tool: hidden from clients that do not render apps, and refused to them. Defaults to `['model', 'app']`.
 */
export type ToolUiLink =
  | string
  | {
      /** The app's name, or its full `ui://` URI. */
      app: string;
      /** Who may call the tool. Defaults to `['model', 'app']`. */
      visibility?: UiVisibility[];
    };

/** The keys of a `ui` link given as an object. */
export const UI_LINK_KEYS: OptionKeys<Exclude<ToolUiLink, string>> = { app: true, visibility: true };

/** A link, checked: what goes on the wire, and whether only apps may call the tool. */
export interface ResolvedUiLink {
  readonly resourceUri: string;
  readonly appOnly: boolean;
  /** `_meta.ui` (and the legacy flat key), to merge into the tool's own `_meta`. */
  readonly meta: Readonly<Record<string, unknown>>;
}

const VISIBILITIES: readonly UiVisibility[] = ['model', 'app'];

/**
 * SEP-1865: the client renders apps (and enforces visibility itself) when it declares the extension; a server (a
 * gateway's upstream) serves apps when it does.
 */
export function declaresUiExtension(capabilities: Readonly<Record<string, unknown>>): boolean {
  const extensions = capabilities.extensions;
  return isObject(extensions) && isObject(extensions[UI_EXTENSION]);
}

/**
 * SEP-1865 Visibility, as this server applies it: an app-only tool does not exist for a client that does not render
 * apps. A host that declared the extension enforces `visibility` itself, and its apps call app-only tools through it.
 */
export function hiddenFrom(
  tool: { readonly ui?: ResolvedUiLink },
  clientCapabilities: Readonly<Record<string, unknown>>,
): boolean {
  return tool.ui?.appOnly === true && !declaresUiExtension(clientCapabilities);
}

/** The apps of one registry, by name and URI, and the tools linked to each (an app in use cannot be removed). */
export class UiApps {
  private readonly uris = new Map<string, string>();
  private readonly linked = new Map<string, Set<string>>();

  add(name: string, uri: string): void {
    this.uris.set(name, uri);
    this.linked.set(uri, new Set());
  }

  /** @throws {McpConfigError} while tools link to the app: removing it would leave them pointing at nothing */
  delete(name: string, uri: string): void {
    const linked = this.linked.get(uri);
    if (linked !== undefined && linked.size > 0) {
      throw new McpConfigError(
        'ERR_MCP_INVALID_DEFINITION',
        `app '${name}' cannot be removed while tools link to it (${[...linked].join(', ')}): remove them first`,
      );
    }
    this.uris.delete(name);
    this.linked.delete(uri);
  }

  /**
   * Checks a tool's `ui` option against the apps registered so far.
   *
   * @throws {McpConfigError} for an app not registered (yet), a `ui://` URI this router does not serve, or a bad visibility
   */
  resolve(link: unknown, tool: string): ResolvedUiLink {
    const label = `tool '${tool}' ui`;
    const { app, visibility } =
      typeof link === 'string' ? { app: link, visibility: undefined } : linkObject(link, label);
    const resourceUri = app.startsWith(UI_SCHEME) ? (this.linked.has(app) ? app : undefined) : this.uris.get(app);
    if (resourceUri === undefined) {
      throw new McpConfigError(
        'ERR_MCP_INVALID_DEFINITION',
        `${label} names the app ${JSON.stringify(app)}, which this router does not serve: register it with mcp.app() before the tools that link to it (or list them in its 'tools')`,
      );
    }
    const seen = visibility === undefined ? VISIBILITIES : checkVisibility(visibility, label);
    const ui = seen.length === VISIBILITIES.length ? { resourceUri } : { resourceUri, visibility: [...seen] };
    return { resourceUri, appOnly: isAppOnly(seen), meta: { ui, [LEGACY_RESOURCE_URI_KEY]: resourceUri } };
  }

  /** Records a registered tool's link (an app in use cannot be removed); returns how to forget it. */
  link(tool: string, link: ResolvedUiLink): () => void {
    this.linked.get(link.resourceUri)?.add(tool);
    return () => {
      this.linked.get(link.resourceUri)?.delete(tool);
    };
  }
}

function linkObject(link: unknown, label: string): { app: string; visibility: unknown } {
  if (!isObject(link) || typeof link.app !== 'string') {
    throw new McpConfigError(
      'ERR_MCP_INVALID_DEFINITION',
      `${label} must be an app name, its ui:// URI, or { app, visibility? }, got ${JSON.stringify(link)}`,
    );
  }
  return { app: link.app, visibility: link.visibility };
}

/** SEP-1865 Visibility: a tool the model may not call is the app's alone. */
function isAppOnly(visibility: readonly UiVisibility[]): boolean {
  return !visibility.includes('model');
}

function isUiUri(uri: unknown): uri is string {
  return typeof uri === 'string' && uri.startsWith(UI_SCHEME);
}

/** A visibility in its canonical order; undefined when it is not a non-empty list of 'model' and 'app'. */
function visibilityOf(visibility: unknown): readonly UiVisibility[] | undefined {
  const valid =
    Array.isArray(visibility) &&
    visibility.length > 0 &&
    visibility.every((entry) => VISIBILITIES.includes(entry as UiVisibility));
  return valid ? VISIBILITIES.filter((entry) => (visibility as unknown[]).includes(entry)) : undefined;
}

function checkVisibility(visibility: unknown, label: string): readonly UiVisibility[] {
  const seen = visibilityOf(visibility);
  if (seen === undefined) {
    throw new McpConfigError(
      'ERR_MCP_INVALID_DEFINITION',
      `${label} visibility must be a non-empty list of 'model' and 'app', got ${JSON.stringify(visibility)}`,
    );
  }
  return seen;
}

/**
 * The link an upstream tool's `_meta` carries (SEP-1865 Resource Discovery), its `ui://` URIs renamed as the gateway
 * shows them, so the tool is listed and hidden like a local one; undefined when it names no `ui://` resource.
 *
 * An upstream is not a registration to refuse: what cannot be read is passed on as it came. A `ui` that is not an
 * object, or a `resourceUri` that is not `ui://`, keeps its URI as sent; such a link, or a visibility that is not a
 * non-empty list of 'model' and 'app', counts as the default `['model', 'app']`: a rule we cannot read never hides a
 * tool its server may have meant for the model (visibility is no access control either way).
 *
 * @example
 * ```ts
 * forwardedUiLink({ ui: { resourceUri: 'ui://fs/view', visibility: ['app'] } }, naming.uri);
 * // { resourceUri: 'ui://fs+fs/view', appOnly: true, meta: { ui: { resourceUri: 'ui://fs+fs/view', visibility: ['app'] } } }
 * ```
 */
export function forwardedUiLink(meta: unknown, rename: (uri: string) => string): ResolvedUiLink | undefined {
  if (!isObject(meta)) return undefined;
  const { ui, [LEGACY_RESOURCE_URI_KEY]: legacy } = meta;
  const renamed: Record<string, unknown> = {};
  let resourceUri: string | undefined;
  let appOnly = false;
  if (isUiUri(legacy)) resourceUri = renamed[LEGACY_RESOURCE_URI_KEY] = rename(legacy);
  if (isObject(ui) && isUiUri(ui.resourceUri)) {
    resourceUri = rename(ui.resourceUri);
    renamed.ui = { ...ui, resourceUri };
    const seen = ui.visibility === undefined ? VISIBILITIES : visibilityOf(ui.visibility);
    appOnly = seen !== undefined && isAppOnly(seen);
  }
  return resourceUri === undefined ? undefined : { resourceUri, appOnly, meta: renamed };
}
