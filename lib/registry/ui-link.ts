// MCP Apps (SEP-1865) in the registry: the apps registered, a tool's `ui` link to one, and who may see app-only tools.

import { McpConfigError } from '../config-error';
import { isObject } from '../jsonrpc/types';

/** The extension's identifier, in capabilities on both sides (SEP-1865 Capability Negotiation). */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
/** The one MIME type of an app's HTML (SEP-1865 UI Resource Format). */
export const UI_MIME_TYPE = 'text/html;profile=mcp-app';
/** The flat key older hosts read the resource URI from; the official server helpers still write it beside `ui`. */
const LEGACY_RESOURCE_URI_KEY = 'ui/resourceUri';

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

/** A link, checked: what goes on the wire, and whether only apps may call the tool. */
export interface ResolvedUiLink {
  readonly resourceUri: string;
  readonly appOnly: boolean;
  /** `_meta.ui` (and the legacy flat key), to merge into the tool's own `_meta`. */
  readonly meta: Readonly<Record<string, unknown>>;
}

const VISIBILITIES: readonly UiVisibility[] = ['model', 'app'];

/** SEP-1865: the client renders apps (and enforces visibility itself) when it declares the extension. */
export function declaresUiExtension(clientCapabilities: Readonly<Record<string, unknown>>): boolean {
  const extensions = clientCapabilities.extensions;
  return isObject(extensions) && isObject(extensions[UI_EXTENSION]);
}

/** The apps of one registry, by name and URI, and the tools linked to each (an app in use cannot be removed). */
export class UiApps {
  private readonly uris = new Map<string, string>();
  private readonly linked = new Map<string, Set<string>>();
  /** How many registered tools only apps may call: 0 keeps tools/list and tools/call on their usual path. */
  appOnlyTools = 0;

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
    const resourceUri = app.startsWith('ui://') ? (this.linked.has(app) ? app : undefined) : this.uris.get(app);
    if (resourceUri === undefined) {
      throw new McpConfigError(
        'ERR_MCP_INVALID_DEFINITION',
        `${label} names the app ${JSON.stringify(app)}, which this router does not serve: register it with mcp.app() before the tools that link to it (or list them in its 'tools')`,
      );
    }
    const seen = visibility === undefined ? VISIBILITIES : checkVisibility(visibility, label);
    const ui = seen.length === VISIBILITIES.length ? { resourceUri } : { resourceUri, visibility: [...seen] };
    return { resourceUri, appOnly: !seen.includes('model'), meta: { ui, [LEGACY_RESOURCE_URI_KEY]: resourceUri } };
  }

  /** Records a registered tool's link (and counts it when app-only); returns how to forget it. */
  link(tool: string, link: ResolvedUiLink): () => void {
    this.linked.get(link.resourceUri)?.add(tool);
    if (link.appOnly) this.appOnlyTools++;
    return () => {
      this.linked.get(link.resourceUri)?.delete(tool);
      if (link.appOnly) this.appOnlyTools--;
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

function checkVisibility(visibility: unknown, label: string): readonly UiVisibility[] {
  const valid =
    Array.isArray(visibility) &&
    visibility.length > 0 &&
    visibility.every((entry) => VISIBILITIES.includes(entry as UiVisibility));
  if (!valid) {
    throw new McpConfigError(
      'ERR_MCP_INVALID_DEFINITION',
      `${label} visibility must be a non-empty list of 'model' and 'app', got ${JSON.stringify(visibility)}`,
    );
  }
  return VISIBILITIES.filter((entry) => (visibility as unknown[]).includes(entry));
}
