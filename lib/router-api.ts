// McpRouterApi: what mcpRouter() adds to an express.Router (registration, the bridge, shutdown), and the McpRouter type.

import type { RequestHandler, Router } from 'express';
import type { McpAppOptions, McpAppRegistration } from './features/apps/apps';
import type { RouteTarget } from './edge/host-routes/host-dispatch';
import type { BridgedRouteMeta, RouteToolMeta } from './edge/host-routes/route-tool-meta';
import type { UpstreamHandle } from './features/gateway/mount/upstream';
import type { UpstreamOptions } from './features/gateway/mount/upstream-options';
import type { McpRegistration } from './core/registry/definition';
import type { PromptDefinition } from './core/registry/prompts';
import type { ResourceDefinition, ResourceTemplateDefinition } from './core/registry/resources';
import type { JsonSchema, ToolDefinition } from './core/registry/tools';
import type { McpSkill } from './features/skills/serve-skills';
import type { SkillsOptions } from './features/skills/skills-options';
import type { InferSchema, InferToolArgs } from './core/schema/infer';

/** What `mcpRouter()` adds to an `express.Router`: registration of tools, resources and prompts. */
export interface McpRouterApi {
  /**
   * Registers a tool. Its schemas are compiled now; a bad definition throws `McpConfigError`. When
   * `inputSchema` is written inline, the handler's arguments are typed from it ({@link InferSchema}).
   *
   * @returns a handle whose `remove()` takes the tool off again
   */
  tool<const Schema extends JsonSchema = JsonSchema, Args = InferToolArgs<Schema>>(
    definition: ToolDefinition<Args> & { inputSchema?: Schema },
  ): McpRegistration;
  /** Registers a resource with a fixed URI. */
  resource(definition: ResourceDefinition): McpRegistration;
  /** Registers a family of resources named by an RFC 6570 URI template (`users://{id}/profile`). */
  resourceTemplate<Vars extends Record<string, string> = Record<string, string>>(
    definition: ResourceTemplateDefinition<Vars>,
  ): McpRegistration;
  /** Registers a prompt. */
  prompt<Args extends Record<string, string | undefined> = Record<string, string | undefined>>(
    definition: PromptDefinition<Args>,
  ): McpRegistration;
  /**
   * Serves every Agent Skill under a folder (each folder with a `SKILL.md`) over MCP, SEP-2640: the
   * `io.modelcontextprotocol/skills` extension, `skills/list` and `skills/get` (entries with `sha256:` digests), the
   * discovery index `skill://index.json`, each file as a `skill://` resource, and `resources/directory/read`. The folder is walked and every skill checked now;
   * files are read at request time, only while they are the ones listed. Once per router.
   *
   * @returns the skills served
   * @throws {McpConfigError} for a bad option, or a bad skill (its file named): a name that is not its folder's, no
   *   description, frontmatter it cannot read, a symlink, a file over `maxFileBytes`
   * @example
   * ```ts
   * mcp.skills('./skills'); // ./skills/pdf-processing/SKILL.md → skill://pdf-processing/SKILL.md
   * mcp.skills({ dir: './skills', directoryRead: false, maxFileBytes: 256 * 1024 });
   * ```
   */
  skills(options: string | SkillsOptions): readonly McpSkill[];
  /**
   * Registers an MCP App (SEP-1865, `io.modelcontextprotocol/ui`): HTML a host renders in a sandboxed iframe as a
   * tool's interface, served as the resource `ui://<router name>/<name>` (`text/html;profile=mcp-app`) with its
   * `_meta.ui` (CSP origins, permissions). Its HTML is a string, a file, or a GET route of the host app rendered
   * in-process. Tools link to it with `ui: '<name>'`, registered after it; the options are checked now.
   *
   * @returns a handle with the app's `uri`, whose `remove()` throws while tools other than its own `tools` link to it
   * @throws {McpConfigError} naming the option: a bad name, not exactly one of html/file/route, a file that cannot be
   *   read, an unknown CSP or permission key, an origin that is not one
   * @example
   * ```ts
   * mcp.app({ name: 'order-form', route: '/apps/order-form', csp: { resourceDomains: ['https://cdn.example.com'] } });
   * mcp.tool({ name: 'order', description: 'Order a product', ui: 'order-form', handler: placeOrder });
   * mcp.tool({ name: 'quote', description: 'Price an order', ui: { app: 'order-form', visibility: ['app'] }, handler: quote });
   * ```
   */
  app(options: McpAppOptions): McpAppRegistration;
  /**
   * Tells the clients subscribed to `uri` that the resource changed: `notifications/resources/updated` on the GET
   * stream of every session subscribed to it (MCP resources › Subscriptions). Clients then read it again.
   *
   * @example
   * ```ts
   * await saveReadme(text);
   * mcp.notifyResourceUpdated('docs://readme');
   * ```
   */
  notifyResourceUpdated(uri: string): void;
  /**
   * Mounts another MCP server (either era) beside this router's own items: its tools and prompts as
   * `<prefix>__<name>`, its resources as `<prefix>+<uri>`, behind the same auth, guards and limits. Its lists are
   * fetched now and kept fresh; a failing upstream never fails a list. Calls, reads and gets are forwarded with the
   * upstream's own credentials (`headers`), never the caller's.
   *
   * @returns a handle: `status()`, `refresh()`, `remove()`
   * @throws {McpConfigError} for a bad option, a name or prefix already mounted, or a forwarded credential header
   * @example
   * ```ts
   * const fs = mcp.upstream({ prefix: 'fs', url: 'https://fs.internal/mcp', headers: { authorization: `Bearer ${process.env.FS_TOKEN}` } });
   * fs.status(); // { name: 'fs', state: 'healthy', items: { tools: 12, … }, … }
   * ```
   */
  upstream(options: UpstreamOptions): UpstreamHandle;
  /** Ends every session: aborts requests in flight, closes streams, stops timers and listening to server events (graceful shutdown, tests). */
  close(): Promise<void>;
  /**
   * Wraps an existing route's handlers as a tool, and returns them unchanged for Express: the REST route works
   * as before, and the tool runs the same chain in-process. With a string, it is `express.Router#route`.
   *
   * @example
   * ```ts
   * app.get('/users/:id', mcp.route({ description: 'Fetch a user', path: '/users/:id' }, requireUser, getUser));
   * ```
   */
  route(meta: BridgedRouteMeta, ...handlers: RequestHandler[]): RequestHandler[];
  /**
   * Registers tools that dispatch in-process through the whole `app` by method and path, so the app's own
   * middleware (auth, body parsing, validation, logging) runs as for a real request. No network is involved.
   */
  exposeRoutes(
    app: RouteTarget,
    routes: ReadonlyArray<RouteToolMeta & { method: string; path: string }>,
  ): McpRegistration[];
  /**
   * Registers a tool for every operation of an OpenAPI 3 document the app serves (see `routesFromOpenApi`),
   * dispatched like {@link McpRouterApi.exposeRoutes}.
   */
  exposeOpenApi(app: RouteTarget, document: unknown): McpRegistration[];
  /**
   * Registers the `@tool`, `@resource` and `@prompt` methods of a controller instance.
   *
   * @example
   * ```ts
   * class Users { @tool({ description: 'Fetch a user', method: 'GET', path: '/users/:id' }) get(req: Request, res: Response) { … } }
   * mcp.register(new Users());
   * ```
   */
  register(controller: object): McpRegistration[];
  /**
   * The RFC 9728 protected-resource metadata handler (unauthenticated, CORS-readable). The router already serves
   * the document at `<mount path>/.well-known/oauth-protected-resource` and names that URL in its 401s; mount this
   * at the app's root too for clients that look only where RFC 9728 puts it, and the 401s name that URL instead:
   * `app.use('/.well-known/oauth-protected-resource', mcp.authMetadata)`.
   */
  authMetadata: RequestHandler;
  /**
   * With `auth.server`: the authorization server metadata (RFC 8414) for the app's root, where clients look first
   * for an issuer with a path (RFC 8414 §3.1 path insertion). The router already serves it at
   * `<mount path>/.well-known/openid-configuration` (found by every MCP client), so this is optional:
   * `app.use(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'], mcp.authServerMetadata)`.
   */
  authServerMetadata: RequestHandler;
}

/** An `express.Router` serving MCP at the path it is mounted on, plus {@link McpRouterApi}. */
export type McpRouter = Router & McpRouterApi;
